<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
<context>
    <name></name>
    <message>
        <source>EmptyRootPanel</source>
        <comment>Create a workspace for a folder</comment>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>EmptyRootPanel</source>
        <comment>Created the workspace {name} for {folder}. Add records with New record.</comment>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>UndoCommitButton</source>
        <comment>Nothing to undo: no commit of this scope is recorded yet.</comment>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>UndoCommitButton</source>
        <comment>GLOBAL.md</comment>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>UndoCommitButton</source>
        <comment>This workspace</comment>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>UndoCommitButton</source>
        <comment>{what} changed after that commit (an agent, another program or another edit wrote to it), so it can&apos;t be undone safely. Nothing was written; its earlier versions are in the Recycle Bin.</comment>
        <translation type="unfinished">
            <numerusform></numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>UndoCommitButton</source>
        <comment>The previous version of {name} is no longer in history (it expired); nothing was undone.</comment>
        <translation type="unfinished">
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <source>UndoCommitButton</source>
        <comment>This workspace is not active any more (archived or removed); nothing was undone.</comment>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>AgentView</name>
    <message>
        <source>Select a workspace.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&lt;b&gt;MEMORY.md&lt;/b&gt; — {size} ({bytes} bytes). This index is what the agent loads for this workspace; it opens individual records when one looks relevant. It is rebuilt on every commit and never edited by hand.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>(MEMORY.md is missing: the next commit writes it)</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>BulkActions</name>
    <message>
        <source>Stage or revert the edits in the editor first, then apply the bulk action.</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>Staged deleting %n record(s). Review them in Staged changes, then Commit.</source>
        <translation type="unfinished">
            <numerusform></numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Staged changing %n record(s) to {type}. Review them in Staged changes, then Commit.</source>
        <translation type="unfinished">
            <numerusform></numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Staged moving %n record(s) to {where}.</source>
        <translation type="unfinished">
            <numerusform></numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Staged copying %n record(s) to {where}.</source>
        <translation type="unfinished">
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <source>Not staged (a different record of that name is already there, or it is invalid or deleted here): {names}.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Review them in Staged changes, then Commit.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Export the selected records to</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>Exported %n record(s) to {path}.</source>
        <translation type="unfinished">
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <source>Left out: {names}.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>BulkBar</name>
    <message>
        <source>Delete</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Stage deleting every selected record</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Stage changing the type of every selected record</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Type…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The workspace to move or copy the selected records to</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Move</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Stage putting the selected records there and deleting them here</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Copy</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Stage putting a copy of the selected records there</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Export…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Write the selected records, as they are on disk, to a zip of Markdown files</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>%n selected:</source>
        <translation type="unfinished">
            <numerusform></numerusform>
        </translation>
    </message>
</context>
<context>
    <name>CommitFlow</name>
    <message numerus="yes">
        <source>Committed %n change(s).</source>
        <translation type="unfinished">
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <source>Possible credential</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The staged changes look like they contain a credential:
{where}

Agents read memory. Commit anyway?</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Commit anyway</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Not committed: remove the credential, stage, and commit again.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Not committed: this workspace (or one you are moving records to) changed on disk after you started (an agent or another program wrote to it). Nothing was written; your staged changes are kept.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Reload and re-review</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Workspace changed on disk</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>This workspace changed on disk after you staged your changes, so nothing was written.

Reload it now? Your staged changes are kept and shown against the current version so you can review them again before committing.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Reload</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Reloaded. Review the staged changes against the current version, then commit.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>EmptyRootPanel</name>
    <message>
        <source>A workspace is the memory of one project folder. DSH agents create one the first time they run in a folder and remember something there; it then appears here.&lt;br&gt;&lt;br&gt;You can also create one yourself for a folder you choose, and add records to it by hand. Or open the demo root to look around with sample memory first.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Create a workspace for a folder…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Open the demo root</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>ForeignPanel</name>
    <message>
        <source>Other stores</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Store: {store} (read-only here)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Kind: {kind} · Status: {status}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source> · Updated: {when}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Folder: {folder}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>(about the user in general)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Id: {id} · File: {path}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Tags: </source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Entries other memory stores hold for this folder. Read-only: nothing here changes them.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Could not read the other memory stores: </source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>%n entries for this folder in {stores}. Read-only: nothing here changes them.</source>
        <translation type="unfinished">
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <source>No other memory store holds entries for this folder.</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>Other stores (%n)</source>
        <translation type="unfinished">
            <numerusform></numerusform>
        </translation>
    </message>
</context>
<context>
    <name>RecordEditor</name>
    <message>
        <source>
The durable, self-contained fact.

**Why:** Why it matters.

**How to apply:** When and how to use it.
</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>short-kebab-case-name</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Name</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Type</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>One-line relevance hook</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Description</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Delete</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Stage deleting this record (nothing is written until you commit)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Revert</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Stage</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Add this record to the batch of changes to commit</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Undo the edits in the editor</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Undo the staged change to this record (it is not written until you commit)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>created or changed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>deleted</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>session {session} · seqs {first}–{last} · {when}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Written by a consolidation: </source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a record named {name} already exists in this workspace</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the text is still the template: replace it with the fact to remember</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&lt;b&gt;This file is invalid&lt;/b&gt; (agents skip it): {reasons}. The fields show what could be read from it; correct them and stage to replace the file (Staged changes shows the old text against the new).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Bytes that are not UTF-8 are shown as �; staging writes them as � (the old file stays in the Recycle Bin&apos;s history).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>⚠ Looks like a credential — agents read memory: {where}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>✓ Valid record</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Links: </source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>RecordTableModel</name>
    <message>
        <source>staged: new</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>staged: changed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>staged: deleted</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Name</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Type</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Description</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Size</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Status</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>RecordsPanel</name>
    <message>
        <source>No workspace selected</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Archive workspace…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Move this workspace to the Recycle Bin (it can be restored)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Filter records (name, description, text)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>All types</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Invalid files</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>New record</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>staged: changed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Loading workspaces…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No workspaces yet.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Your staged changes will be discarded.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Its folder no longer exists.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Move the workspace {name} ({folder}) to the Recycle Bin?</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Agents will no longer load its memory. You can restore it from the Recycle Bin.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Archive workspace?</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Archive</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The folder {folder} no longer exists. Agents will never load this workspace again; archive it to the Recycle Bin (you can restore it later).</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>%n record(s)</source>
        <translation type="unfinished">
            <numerusform></numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>, %n invalid</source>
        <translation type="unfinished">
            <numerusform></numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>, %n staged</source>
        <translation type="unfinished">
            <numerusform></numerusform>
        </translation>
    </message>
</context>
<context>
    <name>SearchPanel</name>
    <message>
        <source>Global</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Include other stores</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Also search DSH workspace memory, cross-workspace notes, project memory and Claude Code (read-only)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Search all memory…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>indexing {percent} %…</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>%n result(s) for “{query}”</source>
        <translation type="unfinished">
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <source>indexing {percent} %… {results} so far</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>StagedPanel</name>
    <message>
        <source>Nothing staged.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Discard all</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Commit</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Write every staged change at once (Ctrl+S)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Nothing staged. Edit a record and press Stage; changes are written together on Commit.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>delete {name}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>{name} → {workspace}</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>&lt;b&gt;%n staged change(s)&lt;/b&gt;: {names}. Review the diff, then Commit writes them all at once (or nothing).</source>
        <translation type="unfinished">
            <numerusform></numerusform>
        </translation>
    </message>
</context>
<context>
    <name>UndoCommitButton</name>
    <message numerus="yes">
        <source>%n record(s) at {when}: {names}</source>
        <translation type="unfinished">
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <source>Undo last commit</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Put back what the last commit here changed (itself a commit: undo it again to redo)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Undid the last commit ({what}). To redo it, undo again.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Possible credential</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The version the undo puts back looks like it contains a credential:
{where}

Agents read memory. Undo anyway?</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Undo anyway</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Nothing was undone.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>WorkspaceList</name>
    <message>
        <source>Workspaces</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Filter workspaces</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Records</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>WorkspaceTab</name>
    <message>
        <source>Record</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Staged changes</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Agent view</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>This workspace was archived or removed outside this window. Your staged changes can&apos;t be committed; restore it from the Recycle Bin to continue.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Discard changes?</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>You have changes in this workspace that are not committed. Discard them and switch?</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Discard</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>That workspace is no longer there (archived or removed).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>This workspace changed on disk (an agent or another program wrote to it). Your staged changes are kept; reload to review them against the new version.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>This workspace changed on disk (an agent or another program wrote to it). Your edits are kept; reload to review them against the new version.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Reload and re-review</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The record you were viewing was deleted on disk.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Stage</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Unstaged edits</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Your edits to {name} are not staged yet.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the new record</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Your edits in the editor are not staged yet.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Can&apos;t stage this record: {reasons}</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>Staged changes (%n)</source>
        <translation type="unfinished">
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <source>Archived {name}. It is in the Recycle Bin.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Not archived: the workspace changed on disk just now. Look at it again, then archive.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Commit or discard your staged changes and edits first, then undo the last commit.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>WorkspaceTableModel</name>
    <message>
        <source>Workspace</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Records</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Problems</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Workspace folder name (hover for its path)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Valid records</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Things to look at</source>
        <translation type="unfinished"></translation>
    </message>
</context>
</TS>
