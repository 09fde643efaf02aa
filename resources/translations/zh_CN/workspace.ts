<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
<context>
    <name>AgentView</name>
    <message>
        <source>Select a workspace.</source>
        <translation>请选择一个工作区。</translation>
    </message>
    <message>
        <source>&lt;b&gt;MEMORY.md&lt;/b&gt; — {size} ({bytes} bytes). This index is what the agent loads for this workspace; it opens individual records when one looks relevant. It is rebuilt on every commit and never edited by hand.</source>
        <translation>&lt;b&gt;MEMORY.md&lt;/b&gt; — {size}（{bytes} 字节）。智能体进入这个工作区时加载的就是这份索引，看到相关条目时才去打开对应的记忆。每次提交都会重新生成，不要手动编辑。</translation>
    </message>
    <message>
        <source>(MEMORY.md is missing: the next commit writes it)</source>
        <translation>（MEMORY.md 不存在：下次提交时会生成）</translation>
    </message>
</context>
<context>
    <name>BulkActions</name>
    <message>
        <source>Stage or revert the edits in the editor first, then apply the bulk action.</source>
        <translation>请先暂存或还原编辑器中的修改，再执行批量操作。</translation>
    </message>
    <message numerus="yes">
        <source>Staged deleting %n record(s). Review them in Staged changes, then Commit.</source>
        <translation>
            <numerusform>已暂存删除 %n 条记忆。请在“暂存的更改”中检查后再提交。</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Staged changing %n record(s) to {type}. Review them in Staged changes, then Commit.</source>
        <translation>
            <numerusform>已暂存把 %n 条记忆的类型改为 {type}。请在“暂存的更改”中检查后再提交。</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Staged moving %n record(s) to {where}.</source>
        <translation>
            <numerusform>已暂存把 %n 条记忆移动到 {where}。</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Staged copying %n record(s) to {where}.</source>
        <translation>
            <numerusform>已暂存把 %n 条记忆复制到 {where}。</numerusform>
        </translation>
    </message>
    <message>
        <source>Not staged (a different record of that name is already there, or it is invalid or deleted here): {names}.</source>
        <translation>未暂存（目标中已有同名但内容不同的记忆，或它在这里无效或已标记删除）：{names}。</translation>
    </message>
    <message>
        <source>Review them in Staged changes, then Commit.</source>
        <translation>请在“暂存的更改”中检查后再提交。</translation>
    </message>
    <message>
        <source>Export the selected records to</source>
        <translation>将选中的记忆导出到</translation>
    </message>
    <message numerus="yes">
        <source>Exported %n record(s) to {path}.</source>
        <translation>
            <numerusform>已导出 %n 条记忆到 {path}。</numerusform>
        </translation>
    </message>
    <message>
        <source>Left out: {names}.</source>
        <translation>未包含：{names}。</translation>
    </message>
</context>
<context>
    <name>BulkBar</name>
    <message>
        <source>Delete</source>
        <translation>删除</translation>
    </message>
    <message>
        <source>Stage deleting every selected record</source>
        <translation>暂存删除所有选中的记忆</translation>
    </message>
    <message>
        <source>Stage changing the type of every selected record</source>
        <translation>暂存修改所有选中记忆的类型</translation>
    </message>
    <message>
        <source>Type…</source>
        <translation>类型…</translation>
    </message>
    <message>
        <source>To workspace:</source>
        <translation>目标工作区：</translation>
    </message>
    <message>
        <source>The workspace to move or copy the selected records to</source>
        <translation>要把选中记忆移动或复制到的工作区</translation>
    </message>
    <message>
        <source>Move</source>
        <translation>移动</translation>
    </message>
    <message>
        <source>Stage putting the selected records there and deleting them here</source>
        <translation>暂存：写入目标工作区，并从这里删除</translation>
    </message>
    <message>
        <source>Copy</source>
        <translation>复制</translation>
    </message>
    <message>
        <source>Stage putting a copy of the selected records there</source>
        <translation>暂存：在目标工作区写入一份副本</translation>
    </message>
    <message>
        <source>Export…</source>
        <translation>导出…</translation>
    </message>
    <message>
        <source>Write the selected records, as they are on disk, to a zip of Markdown files</source>
        <translation>把选中记忆按磁盘上的内容导出为 Markdown 文件的 zip 包</translation>
    </message>
    <message numerus="yes">
        <source>%n selected:</source>
        <translation>
            <numerusform>已选 %n 条：</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>CommitFlow</name>
    <message numerus="yes">
        <source>Committed %n change(s).</source>
        <translation>
            <numerusform>已提交 %n 项更改。</numerusform>
        </translation>
    </message>
    <message>
        <source>Possible credential</source>
        <translation>可能含有凭据</translation>
    </message>
    <message>
        <source>The staged changes look like they contain a credential:
{where}

Agents read memory. Commit anyway?</source>
        <translation>暂存的更改中似乎包含凭据：
{where}

智能体会读取记忆。仍然提交吗？</translation>
    </message>
    <message>
        <source>Commit anyway</source>
        <translation>仍然提交</translation>
    </message>
    <message>
        <source>Not committed: remove the credential, stage, and commit again.</source>
        <translation>未提交：请删除凭据，重新暂存后再提交。</translation>
    </message>
    <message>
        <source>Not committed: this workspace (or one you are moving records to) changed on disk after you started (an agent or another program wrote to it). Nothing was written; your staged changes are kept.</source>
        <translation>未提交：在你开始修改之后，这个工作区（或你要移入记忆的工作区）在磁盘上被改动了（智能体或其他程序写入过）。没有写入任何内容；你暂存的更改都还在。</translation>
    </message>
    <message>
        <source>Reload and re-review</source>
        <translation>重新加载并再次检查</translation>
    </message>
    <message>
        <source>Workspace changed on disk</source>
        <translation>工作区在磁盘上已被修改</translation>
    </message>
    <message>
        <source>This workspace changed on disk after you staged your changes, so nothing was written.

Reload it now? Your staged changes are kept and shown against the current version so you can review them again before committing.</source>
        <translation>在你暂存更改之后，这个工作区在磁盘上被修改了，因此没有写入任何内容。

现在重新加载吗？你暂存的更改会保留，并与当前版本对比显示，方便你在提交前再检查一遍。</translation>
    </message>
    <message>
        <source>Reload</source>
        <translation>重新加载</translation>
    </message>
    <message>
        <source>Reloaded. Review the staged changes against the current version, then commit.</source>
        <translation>已重新加载。请对照当前版本检查暂存的更改，然后提交。</translation>
    </message>
</context>
<context>
    <name>DetailPane</name>
    <message>
        <source>Record</source>
        <translation>记忆</translation>
    </message>
    <message>
        <source>Staged changes</source>
        <translation>暂存的更改</translation>
    </message>
    <message>
        <source>Agent view</source>
        <translation>智能体视图</translation>
    </message>
    <message numerus="yes">
        <source>Staged changes (%n)</source>
        <translation>
            <numerusform>暂存的更改（%n）</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>EmptyRootPanel</name>
    <message>
        <source>Create a workspace for a folder</source>
        <translation>为文件夹创建工作区</translation>
    </message>
    <message>
        <source>Created the workspace {name} for {folder}. Add records with New record.</source>
        <translation>已为 {folder} 创建工作区 {name}。点击“新建记忆”添加内容。</translation>
    </message>
    <message>
        <source>A workspace is the memory of one project folder. DSH agents create one the first time they run in a folder and remember something there; it then appears here.&lt;br&gt;&lt;br&gt;You can also create one yourself for a folder you choose, and add records to it by hand. Or open the demo root to look around with sample memory first.</source>
        <translation>工作区就是一个项目文件夹的记忆。DSH 智能体第一次在某个文件夹中运行并记住内容时，会自动创建工作区，之后它就会出现在这里。&lt;br&gt;&lt;br&gt;你也可以为自己选择的文件夹创建工作区，并手动添加记忆；或者先打开演示记忆根目录，用示例记忆熟悉一下。</translation>
    </message>
    <message>
        <source>Create a workspace for a folder…</source>
        <translation>为文件夹创建工作区…</translation>
    </message>
    <message>
        <source>Open the demo root</source>
        <translation>打开演示根目录</translation>
    </message>
</context>
<context>
    <name>ForeignPanel</name>
    <message>
        <source>Other stores</source>
        <translation>其他记忆库</translation>
    </message>
    <message>
        <source>Store: {store} (read-only here)</source>
        <translation>记忆库：{store}（此处只读）</translation>
    </message>
    <message>
        <source>Kind: {kind} · Status: {status}</source>
        <translation>类别：{kind} · 状态：{status}</translation>
    </message>
    <message>
        <source> · Updated: {when}</source>
        <translation> · 更新于：{when}</translation>
    </message>
    <message>
        <source>Folder: {folder}</source>
        <translation>文件夹：{folder}</translation>
    </message>
    <message>
        <source>(about the user in general)</source>
        <translation>（关于用户本人，不限项目）</translation>
    </message>
    <message>
        <source>Id: {id} · File: {path}</source>
        <translation>ID：{id} · 文件：{path}</translation>
    </message>
    <message>
        <source>Tags: </source>
        <translation>标签：</translation>
    </message>
    <message>
        <source>Entries other memory stores hold for this folder. Read-only: nothing here changes them.</source>
        <translation>其他记忆库中与这个文件夹相关的条目。只读：这里的操作不会改动它们。</translation>
    </message>
    <message>
        <source>Could not read the other memory stores: </source>
        <translation>无法读取其他记忆库：</translation>
    </message>
    <message numerus="yes">
        <source>%n entries for this folder in {stores}. Read-only: nothing here changes them.</source>
        <translation>
            <numerusform>{stores} 中有 %n 个与此文件夹相关的条目。只读：这里的操作不会改动它们。</numerusform>
        </translation>
    </message>
    <message>
        <source>No other memory store holds entries for this folder.</source>
        <translation>其他记忆库中没有与此文件夹相关的条目。</translation>
    </message>
    <message numerus="yes">
        <source>Other stores (%n)</source>
        <translation>
            <numerusform>其他记忆库（%n）</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>MovedGlue</name>
    <message>
        <source>Moved: the records are in the new folder&apos;s workspace; the old copy is in the Recycle Bin.</source>
        <translation>已移动：记录现在在新文件夹的工作区里；旧副本在回收站中。</translation>
    </message>
</context>
<context>
    <name>RecordEditor</name>
    <message>
        <source>Fill in a name, a description and the fact, then Stage.</source>
        <translation>填写名称、描述和要记住的事实，然后暂存。</translation>
    </message>
    <message>
        <source>
The durable, self-contained fact.

**Why:** Why it matters.

**How to apply:** When and how to use it.
</source>
        <translation>
一条长期有效、不依赖上下文的事实。

**原因：** 为什么重要。

**如何应用：** 在什么时候、怎样使用。
</translation>
    </message>
    <message>
        <source>short-kebab-case-name</source>
        <translation>short-kebab-case-name（短横线命名）</translation>
    </message>
    <message>
        <source>Name</source>
        <translation>名称</translation>
    </message>
    <message>
        <source>Type</source>
        <translation>类型</translation>
    </message>
    <message>
        <source>One-line relevance hook</source>
        <translation>一句话说明何时相关</translation>
    </message>
    <message>
        <source>Description</source>
        <translation>描述</translation>
    </message>
    <message>
        <source>Delete</source>
        <translation>删除</translation>
    </message>
    <message>
        <source>Stage deleting this record (nothing is written until you commit)</source>
        <translation>暂存删除这条记忆（提交前不会写入磁盘）</translation>
    </message>
    <message>
        <source>Revert</source>
        <translation>还原</translation>
    </message>
    <message>
        <source>Stage</source>
        <translation>暂存</translation>
    </message>
    <message>
        <source>Add this record to the batch of changes to commit</source>
        <translation>把这条记忆加入待提交的更改</translation>
    </message>
    <message>
        <source>Undo the edits in the editor</source>
        <translation>撤销编辑器中的修改</translation>
    </message>
    <message>
        <source>Undo the staged change to this record (it is not written until you commit)</source>
        <translation>撤销这条记忆的暂存更改（提交前不会写入磁盘）</translation>
    </message>
    <message>
        <source>created or changed</source>
        <translation>创建或修改</translation>
    </message>
    <message>
        <source>deleted</source>
        <translation>删除</translation>
    </message>
    <message>
        <source>session {session} · seqs {first}–{last} · {when}</source>
        <translation>会话 {session} · 序号 {first}–{last} · {when}</translation>
    </message>
    <message>
        <source>Written by a consolidation: </source>
        <translation>由会话整理写入：</translation>
    </message>
    <message>
        <source>a record named {name} already exists in this workspace</source>
        <translation>这个工作区中已有名为 {name} 的记忆</translation>
    </message>
    <message>
        <source>the text is still the template: replace it with the fact to remember</source>
        <translation>正文仍是模板：请换成要记住的事实</translation>
    </message>
    <message>
        <source>&lt;b&gt;This file is invalid&lt;/b&gt; (agents skip it): {reasons}. The fields show what could be read from it; correct them and stage to replace the file (Staged changes shows the old text against the new).</source>
        <translation>&lt;b&gt;这个文件无效&lt;/b&gt;（智能体会跳过它）：{reasons}。各字段显示的是能从中读出的内容；改正后暂存即可替换该文件（“暂存的更改”会对比新旧文本）。</translation>
    </message>
    <message>
        <source>Bytes that are not UTF-8 are shown as �; staging writes them as � (the old file stays in the Recycle Bin&apos;s history).</source>
        <translation>非 UTF-8 字节显示为 �；暂存后会按 � 写入（旧文件保留在回收站的历史中）。</translation>
    </message>
    <message>
        <source>⚠ Looks like a credential — agents read memory: {where}</source>
        <translation>⚠ 疑似凭据——智能体会读取记忆：{where}</translation>
    </message>
    <message>
        <source>✓ Valid record</source>
        <translation>✓ 记忆有效</translation>
    </message>
    <message>
        <source>no such record</source>
        <translation>没有这条记忆</translation>
    </message>
    <message>
        <source>(missing)</source>
        <translation>（不存在）</translation>
    </message>
    <message>
        <source>Links: </source>
        <translation>链接：</translation>
    </message>
</context>
<context>
    <name>RecordTableModel</name>
    <message>
        <source>staged: new</source>
        <translation>已暂存：新建</translation>
    </message>
    <message>
        <source>staged: changed</source>
        <translation>已暂存：修改</translation>
    </message>
    <message>
        <source>staged: deleted</source>
        <translation>已暂存：删除</translation>
    </message>
    <message>
        <source>invalid</source>
        <translation>无效</translation>
    </message>
    <message>
        <source>Name</source>
        <translation>名称</translation>
    </message>
    <message>
        <source>Type</source>
        <translation>类型</translation>
    </message>
    <message>
        <source>Description</source>
        <translation>描述</translation>
    </message>
    <message>
        <source>Size</source>
        <translation>大小</translation>
    </message>
    <message>
        <source>Status</source>
        <translation>状态</translation>
    </message>
    <message>
        <source>Last used</source>
        <translation>最近使用</translation>
    </message>
    <message>
        <source>When an agent last opened, searched, edited or was served this record (from the DSH session logs and the MCP server)</source>
        <translation>智能体最近一次打开、搜索、编辑或通过 MCP 获取这条记录的时间（来自 DSH 会话日志和 MCP 服务器）</translation>
    </message>
    <message>
        <source>{file} is invalid and is not loaded by the agent:</source>
        <translation>{file} 无效，智能体不会加载它：</translation>
    </message>
</context>
<context>
    <name>RecordsPanel</name>
    <message>
        <source>No workspace selected</source>
        <translation>未选择工作区</translation>
    </message>
    <message>
        <source>Archive workspace…</source>
        <translation>归档工作区…</translation>
    </message>
    <message>
        <source>Move this workspace to the Recycle Bin (it can be restored)</source>
        <translation>把这个工作区移到回收站（可以恢复）</translation>
    </message>
    <message>
        <source>Filter records (name, description, text)</source>
        <translation>筛选记忆（名称、描述、正文）</translation>
    </message>
    <message>
        <source>All types</source>
        <translation>全部类型</translation>
    </message>
    <message>
        <source>Invalid files</source>
        <translation>无效文件</translation>
    </message>
    <message>
        <source>New record</source>
        <translation>新建记忆</translation>
    </message>
    <message>
        <source>Loading workspaces…</source>
        <translation>正在加载工作区…</translation>
    </message>
    <message>
        <source>No workspaces yet.</source>
        <translation>还没有工作区。</translation>
    </message>
    <message>
        <source>Your staged changes will be discarded.</source>
        <translation>你暂存的更改将被丢弃。</translation>
    </message>
    <message>
        <source>Its folder no longer exists.</source>
        <translation>它的文件夹已不存在。</translation>
    </message>
    <message>
        <source>Move the workspace {name} ({folder}) to the Recycle Bin?</source>
        <translation>把工作区 {name}（{folder}）移到回收站吗？</translation>
    </message>
    <message>
        <source>Agents will no longer load its memory. You can restore it from the Recycle Bin.</source>
        <translation>智能体将不再加载它的记忆。你可以从回收站恢复它。</translation>
    </message>
    <message>
        <source>Archive workspace?</source>
        <translation>归档工作区？</translation>
    </message>
    <message>
        <source>Archive</source>
        <translation>归档</translation>
    </message>
    <message>
        <source>The folder {folder} no longer exists. Agents will never load this workspace again; archive it to the Recycle Bin (you can restore it later).</source>
        <translation>文件夹 {folder} 已不存在，智能体再也不会加载这个工作区；请把它归档到回收站（之后可以恢复）。</translation>
    </message>
    <message>
        <source>Moved? Pick the new folder…</source>
        <translation>移动了？选择新文件夹…</translation>
    </message>
    <message numerus="yes">
        <source>%n record(s)</source>
        <translation>
            <numerusform>%n 条记忆</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>, %n invalid</source>
        <translation>
            <numerusform>，%n 个无效</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>, %n staged</source>
        <translation>
            <numerusform>，%n 项已暂存</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>SearchPanel</name>
    <message>
        <source>Searching for “{query}”…</source>
        <translation>正在搜索“{query}”…</translation>
    </message>
    <message>
        <source>Global</source>
        <translation>全局记忆</translation>
    </message>
    <message>
        <source>Include other stores</source>
        <translation>包括其他记忆库</translation>
    </message>
    <message>
        <source>Also search DSH workspace memory, cross-workspace notes, project memory and Claude Code (read-only)</source>
        <translation>同时搜索 DSH 工作区记忆、跨工作区笔记、项目记忆和 Claude Code（只读）</translation>
    </message>
    <message>
        <source>Search all memory…</source>
        <translation>搜索全部记忆…</translation>
    </message>
    <message>
        <source>indexing {percent} %…</source>
        <translation>正在建立索引 {percent}%…</translation>
    </message>
    <message numerus="yes">
        <source>%n result(s) for “{query}”</source>
        <translation>
            <numerusform>“{query}”共 %n 条结果</numerusform>
        </translation>
    </message>
    <message>
        <source>indexing {percent} %… {results} so far</source>
        <translation>正在建立索引 {percent}%… 目前{results}</translation>
    </message>
</context>
<context>
    <name>StagedPanel</name>
    <message>
        <source>Nothing staged.</source>
        <translation>没有暂存的更改。</translation>
    </message>
    <message>
        <source>Discard all</source>
        <translation>全部丢弃</translation>
    </message>
    <message>
        <source>Commit</source>
        <translation>提交</translation>
    </message>
    <message>
        <source>Write every staged change at once (Ctrl+S)</source>
        <translation>一次写入所有暂存的更改（Ctrl+S）</translation>
    </message>
    <message>
        <source>Nothing staged. Edit a record and press Stage; changes are written together on Commit.</source>
        <translation>没有暂存的更改。编辑记忆后点“暂存”；点“提交”时会一起写入。</translation>
    </message>
    <message>
        <source>delete {name}</source>
        <translation>删除 {name}</translation>
    </message>
    <message>
        <source>{name} → {workspace}</source>
        <translation>{name} → {workspace}</translation>
    </message>
    <message numerus="yes">
        <source>&lt;b&gt;%n staged change(s)&lt;/b&gt;: {names}. Review the diff, then Commit writes them all at once (or nothing).</source>
        <translation>
            <numerusform>&lt;b&gt;%n 项暂存的更改&lt;/b&gt;：{names}。检查差异后，“提交”会一次全部写入（要么全部成功，要么都不写）。</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>UndoCommitButton</name>
    <message>
        <source>Nothing to undo: no commit of this scope is recorded yet.</source>
        <translation>没有可撤销的内容：这里还没有记录到任何提交。</translation>
    </message>
    <message>
        <source>GLOBAL.md</source>
        <translation>GLOBAL.md</translation>
    </message>
    <message>
        <source>This workspace</source>
        <translation>这个工作区</translation>
    </message>
    <message>
        <source>{what} changed after that commit (an agent, another program or another edit wrote to it), so it can&apos;t be undone safely. Nothing was written; its earlier versions are in the Recycle Bin.</source>
        <translation>{what}在那次提交之后又被修改过（智能体、其他程序或另一次编辑写入过），无法安全撤销。没有写入任何内容；更早的版本可以在回收站中找到。</translation>
    </message>
    <message>
        <source>The previous version of {name} is no longer in history (it expired); nothing was undone.</source>
        <translation>{name} 的上一个版本已不在历史中（已过期）；没有撤销任何内容。</translation>
    </message>
    <message>
        <source>This workspace is not active any more (archived or removed); nothing was undone.</source>
        <translation>这个工作区已不再活动（已归档或被移除）；没有撤销任何内容。</translation>
    </message>
    <message numerus="yes">
        <source>%n record(s) at {when}: {names}</source>
        <translation>
            <numerusform>{when} 的 %n 条记忆：{names}</numerusform>
        </translation>
    </message>
    <message>
        <source>Undo last commit</source>
        <translation>撤销上次提交</translation>
    </message>
    <message>
        <source>Put back what the last commit here changed (itself a commit: undo it again to redo)</source>
        <translation>恢复上次提交改动的内容（撤销本身也是一次提交：再撤销一次即可重做）</translation>
    </message>
    <message>
        <source>Commit (or save) or discard your unsaved changes first, then undo the last commit.</source>
        <translation>请先提交（或保存）或丢弃未保存的更改，再撤销上次提交。</translation>
    </message>
    <message>
        <source>Undid the last commit ({what}). To redo it, undo again.</source>
        <translation>已撤销上次提交（{what}）。要重做，再撤销一次即可。</translation>
    </message>
    <message>
        <source>Possible credential</source>
        <translation>可能含有凭据</translation>
    </message>
    <message>
        <source>The version the undo puts back looks like it contains a credential:
{where}

Agents read memory. Undo anyway?</source>
        <translation>撤销要恢复的版本中似乎包含凭据：
{where}

智能体会读取记忆。仍然撤销吗？</translation>
    </message>
    <message>
        <source>Undo anyway</source>
        <translation>仍然撤销</translation>
    </message>
    <message>
        <source>Nothing was undone.</source>
        <translation>没有撤销任何内容。</translation>
    </message>
</context>
<context>
    <name>UsageGlue</name>
    <message>
        <source>10 days ago</source>
        <translation>10 天前</translation>
    </message>
    <message>
        <source>Open session {id} in Session Consolidation</source>
        <translation>在“会话整理”中打开会话 {id}</translation>
    </message>
</context>
<context>
    <name>UsageText</name>
    <message>
        <source>never</source>
        <translation>从未</translation>
    </message>
    <message>
        <source>today</source>
        <translation>今天</translation>
    </message>
    <message>
        <source>yesterday</source>
        <translation>昨天</translation>
    </message>
    <message numerus="yes">
        <source>%n day(s) ago</source>
        <translation>
            <numerusform>%n 天前</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n month(s) ago</source>
        <translation>
            <numerusform>%n 个月前</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n year(s) ago</source>
        <translation>
            <numerusform>%n 年前</numerusform>
        </translation>
    </message>
    <message>
        <source>loaded at session start</source>
        <translation>会话开始时载入</translation>
    </message>
    <message>
        <source>opened</source>
        <translation>打开</translation>
    </message>
    <message>
        <source>matched a search</source>
        <translation>被搜索命中</translation>
    </message>
    <message>
        <source>listed</source>
        <translation>被列出</translation>
    </message>
    <message>
        <source>edited by an agent</source>
        <translation>被智能体编辑</translation>
    </message>
    <message>
        <source>served over MCP</source>
        <translation>经 MCP 提供</translation>
    </message>
    <message>
        <source>named by an unknown tool</source>
        <translation>被未知工具引用</translation>
    </message>
    <message>
        <source>No agent has used this record yet (in the sessions and MCP reads counted so far).</source>
        <translation>还没有智能体使用过这条记录（按目前已统计的会话和 MCP 读取）。</translation>
    </message>
    <message numerus="yes">
        <source>opened in %n session(s)</source>
        <translation>
            <numerusform>在 %n 个会话中被打开</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>matched %n time(s) in searches</source>
        <translation>
            <numerusform>被搜索命中 %n 次</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>served %n time(s) over MCP</source>
        <translation>
            <numerusform>经 MCP 提供 %n 次</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>edited by an agent in %n session(s)</source>
        <translation>
            <numerusform>在 %n 个会话中被智能体编辑</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>only listed, in %n session(s)</source>
        <translation>
            <numerusform>仅在 %n 个会话中被列出</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>seen %n time(s)</source>
        <translation>
            <numerusform>出现 %n 次</numerusform>
        </translation>
    </message>
    <message>
        <source>last used {when}</source>
        <translation>最近使用：{when}</translation>
    </message>
    <message>
        <source>Agents: {what}.</source>
        <translation>智能体：{what}。</translation>
    </message>
    <message>
        <source>session {id} · seq {seq}</source>
        <translation>会话 {id} · 序号 {seq}</translation>
    </message>
    <message>
        <source>MCP client {client}</source>
        <translation>MCP 客户端 {client}</translation>
    </message>
    <message>
        <source>No usage ledger yet: it is built from the DSH session logs when a workspace is shown.</source>
        <translation>还没有使用记录：打开工作区时会根据 DSH 会话日志建立。</translation>
    </message>
    <message>
        <source>Never used by an agent in the sessions counted so far.</source>
        <translation>在目前已统计的会话中从未被智能体使用。</translation>
    </message>
    <message>
        <source>Uses by kind:</source>
        <translation>按类型统计：</translation>
    </message>
    <message numerus="yes">
        <source>%n session(s)</source>
        <translation>
            <numerusform>%n 个会话</numerusform>
        </translation>
    </message>
    <message>
        <source>{kind}: {count} (in {sessions})</source>
        <translation>{kind}：{count} 次（{sessions}）</translation>
    </message>
    <message numerus="yes">
        <source>Read after the index was loaded in %n session(s)</source>
        <translation>
            <numerusform>在 %n 个会话中于索引载入后被读取</numerusform>
        </translation>
    </message>
    <message>
        <source>Last uses:</source>
        <translation>最近的使用：</translation>
    </message>
</context>
<context>
    <name>WorkspaceList</name>
    <message>
        <source>Workspaces</source>
        <translation>工作区</translation>
    </message>
    <message>
        <source>Filter workspaces</source>
        <translation>筛选工作区</translation>
    </message>
    <message>
        <source>Records</source>
        <translation>记忆数</translation>
    </message>
</context>
<context>
    <name>WorkspaceTab</name>
    <message>
        <source>This workspace was archived or removed outside this window. Your staged changes can&apos;t be committed; restore it from the Recycle Bin to continue.</source>
        <translation>这个工作区已在本窗口之外被归档或移除，你暂存的更改无法提交；请从回收站恢复它后再继续。</translation>
    </message>
    <message>
        <source>Discard changes?</source>
        <translation>丢弃更改？</translation>
    </message>
    <message>
        <source>You have changes in this workspace that are not committed. Discard them and switch?</source>
        <translation>这个工作区中有尚未提交的更改。要丢弃它们并切换吗？</translation>
    </message>
    <message>
        <source>Discard</source>
        <translation>丢弃</translation>
    </message>
    <message>
        <source>That workspace is no longer there (archived or removed).</source>
        <translation>那个工作区已经不在了（已归档或被移除）。</translation>
    </message>
    <message>
        <source>This workspace changed on disk (an agent or another program wrote to it). Your staged changes are kept; reload to review them against the new version.</source>
        <translation>这个工作区在磁盘上被修改了（智能体或其他程序写入过）。你暂存的更改会保留；重新加载后可对照新版本检查。</translation>
    </message>
    <message>
        <source>This workspace changed on disk (an agent or another program wrote to it). Your edits are kept; reload to review them against the new version.</source>
        <translation>这个工作区在磁盘上被修改了（智能体或其他程序写入过）。你的编辑会保留；重新加载后可对照新版本检查。</translation>
    </message>
    <message>
        <source>Reload and re-review</source>
        <translation>重新加载并再次检查</translation>
    </message>
    <message>
        <source>The record you were viewing was deleted on disk.</source>
        <translation>你正在查看的记忆已在磁盘上被删除。</translation>
    </message>
    <message>
        <source>Stage</source>
        <translation>暂存</translation>
    </message>
    <message>
        <source>Unstaged edits</source>
        <translation>未暂存的修改</translation>
    </message>
    <message>
        <source>Your edits to {name} are not staged yet.</source>
        <translation>你对 {name} 的修改还没有暂存。</translation>
    </message>
    <message>
        <source>the new record</source>
        <translation>新记忆</translation>
    </message>
    <message>
        <source>Your edits in the editor are not staged yet.</source>
        <translation>编辑器中的修改还没有暂存。</translation>
    </message>
    <message>
        <source>Can&apos;t stage this record: {reasons}</source>
        <translation>无法暂存这条记忆：{reasons}</translation>
    </message>
    <message>
        <source>Archived {name}. It is in the Recycle Bin.</source>
        <translation>已归档 {name}，可在回收站中找到。</translation>
    </message>
    <message>
        <source>Not archived: the workspace changed on disk just now. Look at it again, then archive.</source>
        <translation>未归档：工作区刚刚在磁盘上被修改。请重新查看后再归档。</translation>
    </message>
</context>
<context>
    <name>WorkspaceTableModel</name>
    <message>
        <source>folder missing</source>
        <translation>文件夹不存在</translation>
    </message>
    <message numerus="yes">
        <source>%n invalid</source>
        <translation>
            <numerusform>%n 个无效</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n invalid file(s)</source>
        <translation>
            <numerusform>%n 个无效文件</numerusform>
        </translation>
    </message>
    <message>
        <source>Workspace</source>
        <translation>工作区</translation>
    </message>
    <message>
        <source>Records</source>
        <translation>记忆数</translation>
    </message>
    <message>
        <source>Problems</source>
        <translation>问题</translation>
    </message>
    <message>
        <source>Workspace folder name (hover for its path)</source>
        <translation>工作区文件夹名（悬停可查看路径）</translation>
    </message>
    <message>
        <source>Valid records</source>
        <translation>有效记忆数</translation>
    </message>
    <message>
        <source>Things to look at</source>
        <translation>需要关注的问题</translation>
    </message>
    <message>
        <source>key: {key}</source>
        <translation>键：{key}</translation>
    </message>
    <message numerus="yes">
        <source>%n record(s)</source>
        <translation>
            <numerusform>%n 条记忆</numerusform>
        </translation>
    </message>
    <message>
        <source>Counting records…</source>
        <translation>正在统计记忆…</translation>
    </message>
</context>
</TS>
