<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
<context>
    <name>AboutDialog</name>
    <message>
        <source>Version</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Memory root</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Sessions root</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Licence</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Browse, edit and consolidate the long-term memory DeepSeek Harness agents keep on this machine as Markdown.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Released under the {licence} licence.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>About {app}</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>App</name>
    <message>
        <source>No memory yet</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>There is no DSH memory at
{root}
yet.

Open a demo memory root (sample workspaces in English and Chinese) to look around? Your real root is not touched.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Open demo</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>BrokenTab</name>
    <message>
        <source>{tab} could not be opened: {error}</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>Dialogs</name>
    <message>
        <source>OK</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>DiffView</name>
    <message>
        <source>No changes.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>GlobalTab</name>
    <message>
        <source>&lt;b&gt;GLOBAL.md&lt;/b&gt; — about you: profile, preferences, general tips. Every agent loads it.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Reload</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Discard your edits and load GLOBAL.md from disk</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Save</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Save GLOBAL.md (Ctrl+S)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>GLOBAL.md changed on disk after you opened it. Lines with &lt;b&gt;-&lt;/b&gt; are on disk, lines with &lt;b&gt;+&lt;/b&gt; are yours. Nothing was written; your edits are still in the editor.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source># User Profile

# User Preferences

# General Tips
</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>GLOBAL.md can&apos;t be edited here: {reasons}. It is left exactly as it is; fix it in a text editor.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>GLOBAL.md changed on disk (by another program) while you were editing. Your edits are kept and nothing was written. Compare the two versions, or load the disk version.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Compare</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Load disk version</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>GLOBAL.md changed on disk (by another program); reloaded.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Loading…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>{size} (unsaved)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>{bytes} bytes (UTF-8) — what the agent loads</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Saved GLOBAL.md ({size}).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Possible credential</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>GLOBAL.md looks like it contains a credential:
{where}

Agents read this file. Save it anyway?</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Save anyway</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Not saved: remove the credential, then save again.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>GLOBAL.md (on disk)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>GLOBAL.md (yours)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Your text equals the disk version.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Keep my edits and compare</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Overwrite with mine</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Save mine as a copy, load theirs</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Discard mine, load theirs</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Someone else (an agent, the CLI or an editor) changed GLOBAL.md after you opened it. Nothing was written. The differences are shown in the Global tab.

Keep my edits and compare: look at both versions first; your edits stay in the editor.
Overwrite with mine: replace the disk version with yours (the store keeps the one you replace in its history).
Save mine as a copy: write your version to a separate file, then load the disk version.
Discard mine: load the disk version.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>GLOBAL.md changed on disk</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Not saved: GLOBAL.md changed on disk after you opened it. Your edits are kept.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Your version was saved to {path}. The disk version is loaded.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>MainWindow</name>
    <message>
        <source>{tab} (Ctrl+{n})</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Global</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Workspace</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Session Consolidation</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Recycle Bin</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Settings</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Maintenance</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Demo memory — {path}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>{title} (read-only)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;File</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Save</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Refresh</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Open Memory Root…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Open another memory root (a folder) in this window</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Open the &amp;Demo Root</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Sample workspaces in English and Chinese to look around; your real memory is not touched</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Recent &amp;Roots</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Import…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Quit</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;View</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Find</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Help</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;About DSH Memory Manager</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Open {path}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>(no other roots opened yet)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>This memory root is read-only ({root}): you can read and search it, but editing is disabled. Make it writable (or copy it) and refresh to edit memory.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>, </source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>You have unsaved changes in: {tabs}.
Save them before quitting?</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Save and quit</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Discard and quit</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>You have unsaved changes in: {tabs}.
Save them before opening another memory root?</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Save and switch</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Discard and switch</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Unsaved changes</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Not saved</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>{what}: not everything could be saved, so nothing else happened.

{why}

Your edits are still there.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Not quit</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Open a memory root</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Not switched</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the demo root</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Opening {root}…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Could not open the memory root</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>it was not saved (see the tab)</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>Messages</name>
    <message>
        <source>Someone else changed this memory since you opened it (an agent, the CLI or an editor). Nothing was written. Reload to see the current version.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Nothing was written: {reasons}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Nothing was written: it looks like it contains a credential ({where}).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Nothing was written: it looks like it contains a credential.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>It no longer exists on disk. Refresh to see the current state.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Permission denied: {path}. Check the folder&apos;s permissions.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The file system refused the operation on {path}: {reason}. Memory was left unchanged.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The file system refused the operation: {reason}. Memory was left unchanged.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Unexpected error: {kind}: {error}</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>Problems</name>
    <message>
        <source>GLOBAL.md can&apos;t be used: {detail}. Fix it in a text editor; the window leaves it as it is</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the workspace&apos;s scope.json is damaged: {detail}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>not a valid record: {detail}. Fix it in a text editor; the store never changes it</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>{file} is missing; the next commit to this workspace rebuilds it</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>{file} is out of date with the records; the next commit to this workspace rebuilds it</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>an active workspace has the same key; restoring this one needs that one archived or purged first</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the memory root is read-only: it can be read but not edited; make it writable (or copy it) to edit memory</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a symbolic link or file where the store&apos;s folder belongs; the store never writes through it. Replace it with a real folder (move its contents in)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a symbolic link where a workspace folder belongs; the store never reads or writes through it. Move the real folder here or delete the link</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a file where only workspace folders belong; move it elsewhere</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>an interrupted change is waiting to be settled; open the memory with write access (any command that writes) to finish or undo it</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a damaged internal file was moved aside and never acted on; memory was settled from what is on disk. Look at it (its .why file says why), then delete it</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>{file} is a symbolic link or not a regular file; the store never replaces it. Replace it with a regular file (the next commit rebuilds MEMORY.md)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>history of a workspace that no longer exists (purged or deleted by hand); it may hold old secrets. Delete this folder if you don&apos;t need those versions</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>check found 1 problem. Nothing was changed; it says what to do.</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>check found %n problems. Nothing was changed; each line says what to do.</source>
        <translation type="unfinished">
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <source>Problems in this memory root</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>ReadOnly</name>
    <message>
        <source>The memory root is read-only: nothing can be changed here.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>RootStatusBar</name>
    <message>
        <source>What check found wrong in this memory root, and what to do</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Root: {root}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>{bytes} bytes of memory in this root (Global, workspaces, archived)</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>%n workspace</source>
        <translation type="unfinished">
            <numerusform></numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n workspaces</source>
        <translation type="unfinished">
            <numerusform></numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n consolidation review</source>
        <translation type="unfinished">
            <numerusform></numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n consolidation reviews</source>
        <translation type="unfinished">
            <numerusform></numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n agent proposal</source>
        <translation type="unfinished">
            <numerusform></numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n agent proposals</source>
        <translation type="unfinished">
            <numerusform></numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>⚠ %n problem</source>
        <translation type="unfinished">
            <numerusform></numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>⚠ %n problems</source>
        <translation type="unfinished">
            <numerusform></numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n archived</source>
        <translation type="unfinished">
            <numerusform></numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n pending</source>
        <translation type="unfinished">
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <source>{reviews} and {proposals} wait for a decision (Session Consolidation tab)</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>_Strip</name>
    <message>
        <source>Dismiss this message</source>
        <translation type="unfinished"></translation>
    </message>
</context>
</TS>
