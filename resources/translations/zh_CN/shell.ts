<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
<context>
    <name>ProblemsDialog</name>
    <message numerus="yes">
        <source>check found problems in %n file(s). Nothing was changed; each says what to do.</source>
        <translation><numerusform>检查发现 %n 个文件有问题。没有改动任何内容；每一项都说明了该怎么做。</numerusform></translation>
    </message>
    <message>
        <source>Open</source>
        <translation>打开</translation>
    </message>
    <message>
        <source>A record opens in the Workspace tab; any other file in its application</source>
        <translation>记忆条目在“工作区”标签页中打开；其他文件用它的默认应用打开</translation>
    </message>
    <message>
        <source>Reveal in folder</source>
        <translation>在文件夹中显示</translation>
    </message>
</context>
<context>
    <name>AboutDialog</name>
    <message>
        <source>Version</source>
        <translation>版本</translation>
    </message>
    <message>
        <source>Memory root</source>
        <translation>记忆根目录</translation>
    </message>
    <message>
        <source>Sessions root</source>
        <translation>会话目录</translation>
    </message>
    <message>
        <source>Licence</source>
        <translation>许可证</translation>
    </message>
    <message>
        <source>Browse, edit and consolidate the long-term memory DeepSeek Harness agents keep on this machine as Markdown.</source>
        <translation>浏览、编辑和整理 DeepSeek Harness 智能体以 Markdown 形式保存在本机上的长期记忆。</translation>
    </message>
    <message>
        <source>Released under the {licence} licence.</source>
        <translation>以 {licence} 许可证发布。</translation>
    </message>
    <message>
        <source>About {app}</source>
        <translation>关于 {app}</translation>
    </message>
</context>
<context>
    <name>App</name>
    <message>
        <source>No memory yet</source>
        <translation>还没有记忆</translation>
    </message>
    <message>
        <source>There is no DSH memory at
{root}
yet.

Open a demo memory root (sample workspaces in English and Chinese) to look around? Your real root is not touched.</source>
        <translation>以下位置还没有 DSH 记忆：
{root}

要打开一个演示记忆根目录（含中英文示例工作区）先看看吗？你真正的根目录不会被改动。</translation>
    </message>
    <message>
        <source>Open demo</source>
        <translation>打开演示</translation>
    </message>
</context>
<context>
    <name>BrokenTab</name>
    <message>
        <source>{tab} could not be opened: {error}</source>
        <translation>无法打开“{tab}”：{error}</translation>
    </message>
</context>
<context>
    <name>Dialogs</name>
    <message>
        <source>OK</source>
        <translation>确定</translation>
    </message>
</context>
<context>
    <name>DiffView</name>
    <message>
        <source>No changes.</source>
        <translation>没有更改。</translation>
    </message>
</context>
<context>
    <name>GlobalTab</name>
    <message>
        <source>&lt;b&gt;GLOBAL.md&lt;/b&gt; — about you: profile, preferences, general tips. Every agent loads it.</source>
        <translation>&lt;b&gt;GLOBAL.md&lt;/b&gt; —— 关于你：个人简介、偏好和通用提示。每个智能体都会加载它。</translation>
    </message>
    <message>
        <source>Reload</source>
        <translation>重新加载</translation>
    </message>
    <message>
        <source>Discard your edits and load GLOBAL.md from disk</source>
        <translation>丢弃你的编辑，从磁盘重新加载 GLOBAL.md</translation>
    </message>
    <message>
        <source>Save</source>
        <translation>保存</translation>
    </message>
    <message>
        <source>Save GLOBAL.md (Ctrl+S)</source>
        <translation>保存 GLOBAL.md（Ctrl+S）</translation>
    </message>
    <message>
        <source>GLOBAL.md changed on disk after you opened it. Lines with &lt;b&gt;-&lt;/b&gt; are on disk, lines with &lt;b&gt;+&lt;/b&gt; are yours. Nothing was written; your edits are still in the editor.</source>
        <translation>你打开 GLOBAL.md 之后，它在磁盘上被改动了。带 &lt;b&gt;-&lt;/b&gt; 的行是磁盘上的版本，带 &lt;b&gt;+&lt;/b&gt; 的行是你的版本。没有写入任何内容，你的编辑仍在编辑器里。</translation>
    </message>
    <message>
        <source># User Profile

# User Preferences

# General Tips
</source>
        <translation># 个人简介

# 偏好

# 通用提示
</translation>
    </message>
    <message>
        <source>GLOBAL.md can&apos;t be edited here: {reasons}. It is left exactly as it is; fix it in a text editor.</source>
        <translation>无法在这里编辑 GLOBAL.md：{reasons}。文件保持原样，请用文本编辑器修复。</translation>
    </message>
    <message>
        <source>GLOBAL.md changed on disk (by another program) while you were editing. Your edits are kept and nothing was written. Compare the two versions, or load the disk version.</source>
        <translation>你编辑期间，GLOBAL.md 在磁盘上被（其他程序）改动了。你的编辑已保留，没有写入任何内容。可以对比两个版本，或加载磁盘上的版本。</translation>
    </message>
    <message>
        <source>Compare</source>
        <translation>对比</translation>
    </message>
    <message>
        <source>Load disk version</source>
        <translation>加载磁盘版本</translation>
    </message>
    <message>
        <source>GLOBAL.md changed on disk (by another program); reloaded.</source>
        <translation>GLOBAL.md 在磁盘上被（其他程序）改动，已重新加载。</translation>
    </message>
    <message>
        <source>Loading…</source>
        <translation>正在加载…</translation>
    </message>
    <message>
        <source>{size} (unsaved)</source>
        <translation>{size}（未保存）</translation>
    </message>
    <message>
        <source>{bytes} bytes (UTF-8) — what the agent loads</source>
        <translation>{bytes} 字节（UTF-8）—— 智能体加载的大小</translation>
    </message>
    <message>
        <source>Saved GLOBAL.md ({size}).</source>
        <translation>已保存 GLOBAL.md（{size}）。</translation>
    </message>
    <message>
        <source>Possible credential</source>
        <translation>可能含有凭据</translation>
    </message>
    <message>
        <source>GLOBAL.md looks like it contains a credential:
{where}

Agents read this file. Save it anyway?</source>
        <translation>GLOBAL.md 看起来包含凭据：
{where}

智能体会读取这个文件。仍要保存吗？</translation>
    </message>
    <message>
        <source>Save anyway</source>
        <translation>仍然保存</translation>
    </message>
    <message>
        <source>Not saved: remove the credential, then save again.</source>
        <translation>未保存：请删除凭据后再保存。</translation>
    </message>
    <message>
        <source>GLOBAL.md (on disk)</source>
        <translation>GLOBAL.md（磁盘上）</translation>
    </message>
    <message>
        <source>GLOBAL.md (yours)</source>
        <translation>GLOBAL.md（你的）</translation>
    </message>
    <message>
        <source>Your text equals the disk version.</source>
        <translation>你的文本与磁盘版本相同。</translation>
    </message>
    <message>
        <source>Keep my edits and compare</source>
        <translation>保留我的编辑并对比</translation>
    </message>
    <message>
        <source>Overwrite with mine</source>
        <translation>用我的版本覆盖</translation>
    </message>
    <message>
        <source>Save mine as a copy, load theirs</source>
        <translation>把我的另存为副本，加载对方的</translation>
    </message>
    <message>
        <source>Discard mine, load theirs</source>
        <translation>丢弃我的，加载对方的</translation>
    </message>
    <message>
        <source>Someone else (an agent, the CLI or an editor) changed GLOBAL.md after you opened it. Nothing was written. The differences are shown in the Global tab.

Keep my edits and compare: look at both versions first; your edits stay in the editor.
Overwrite with mine: replace the disk version with yours (the store keeps the one you replace in its history).
Save mine as a copy: write your version to a separate file, then load the disk version.
Discard mine: load the disk version.</source>
        <translation>你打开 GLOBAL.md 之后，有人（智能体、命令行或编辑器）改动了它。没有写入任何内容，差异显示在“全局记忆”标签页中。

保留我的编辑并对比：先查看两个版本，你的编辑留在编辑器里。
用我的版本覆盖：用你的版本替换磁盘上的版本（被替换的版本会保存在历史记录中）。
把我的另存为副本：把你的版本写到单独的文件，然后加载磁盘版本。
丢弃我的：加载磁盘版本。</translation>
    </message>
    <message>
        <source>GLOBAL.md changed on disk</source>
        <translation>GLOBAL.md 已在磁盘上被改动</translation>
    </message>
    <message>
        <source>Not saved: GLOBAL.md changed on disk after you opened it. Your edits are kept.</source>
        <translation>未保存：你打开 GLOBAL.md 之后它在磁盘上被改动了。你的编辑已保留。</translation>
    </message>
    <message>
        <source>Your version was saved to {path}. The disk version is loaded.</source>
        <translation>你的版本已保存到 {path}，已加载磁盘版本。</translation>
    </message>
</context>
<context>
    <name>MainWindow</name>
    <message>
        <source>{tab} (Ctrl+{n})</source>
        <translation>{tab}（Ctrl+{n}）</translation>
    </message>
    <message>
        <source>Global</source>
        <translation>全局记忆</translation>
    </message>
    <message>
        <source>Workspace</source>
        <translation>工作区</translation>
    </message>
    <message>
        <source>Session Consolidation</source>
        <translation>会话整理</translation>
    </message>
    <message>
        <source>Recycle Bin</source>
        <translation>回收站</translation>
    </message>
    <message>
        <source>Settings</source>
        <translation>设置</translation>
    </message>
    <message>
        <source>Maintenance</source>
        <translation>维护</translation>
    </message>
    <message>
        <source>Demo memory — {path}</source>
        <translation>演示记忆 — {path}</translation>
    </message>
    <message>
        <source>{title} (read-only)</source>
        <translation>{title}（只读）</translation>
    </message>
    <message>
        <source>&amp;File</source>
        <translation>文件(&amp;F)</translation>
    </message>
    <message>
        <source>&amp;Save</source>
        <translation>保存(&amp;S)</translation>
    </message>
    <message>
        <source>&amp;Refresh</source>
        <translation>刷新(&amp;R)</translation>
    </message>
    <message>
        <source>&amp;Open Memory Root…</source>
        <translation>打开记忆根目录(&amp;O)…</translation>
    </message>
    <message>
        <source>Open another memory root (a folder) in this window</source>
        <translation>在此窗口中打开另一个记忆根目录（一个文件夹）</translation>
    </message>
    <message>
        <source>Open the &amp;Demo Root</source>
        <translation>打开演示根目录(&amp;D)</translation>
    </message>
    <message>
        <source>Sample workspaces in English and Chinese to look around; your real memory is not touched</source>
        <translation>含中英文示例工作区，可以随便看看；不会改动你真正的记忆</translation>
    </message>
    <message>
        <source>Recent &amp;Roots</source>
        <translation>最近的根目录(&amp;R)</translation>
    </message>
    <message>
        <source>&amp;Import…</source>
        <translation>导入(&amp;I)…</translation>
    </message>
    <message>
        <source>&amp;Quit</source>
        <translation>退出(&amp;Q)</translation>
    </message>
    <message>
        <source>&amp;View</source>
        <translation>视图(&amp;V)</translation>
    </message>
    <message>
        <source>&amp;Find</source>
        <translation>查找(&amp;F)</translation>
    </message>
    <message>
        <source>&amp;Help</source>
        <translation>帮助(&amp;H)</translation>
    </message>
    <message>
        <source>&amp;About DSH Memory Manager</source>
        <translation>关于 DSH Memory Manager(&amp;A)</translation>
    </message>
    <message>
        <source>Open {path}</source>
        <translation>打开 {path}</translation>
    </message>
    <message>
        <source>(no other roots opened yet)</source>
        <translation>（还没有打开过其他根目录）</translation>
    </message>
    <message>
        <source>This memory root is read-only ({root}): you can read and search it, but editing is disabled. Make it writable (or copy it) and refresh to edit memory.</source>
        <translation>这个记忆根目录是只读的（{root}）：可以阅读和搜索，但无法编辑。请让它可写（或复制一份）并刷新后再编辑记忆。</translation>
    </message>
    <message>
        <source>, </source>
        <translation>、</translation>
    </message>
    <message>
        <source>You have unsaved changes in: {tabs}.
Save them before quitting?</source>
        <translation>以下位置有未保存的更改：{tabs}。
退出前保存吗？</translation>
    </message>
    <message>
        <source>Save and quit</source>
        <translation>保存并退出</translation>
    </message>
    <message>
        <source>Discard and quit</source>
        <translation>丢弃并退出</translation>
    </message>
    <message>
        <source>You have unsaved changes in: {tabs}.
Save them before opening another memory root?</source>
        <translation>以下位置有未保存的更改：{tabs}。
打开另一个记忆根目录前保存吗？</translation>
    </message>
    <message>
        <source>Save and switch</source>
        <translation>保存并切换</translation>
    </message>
    <message>
        <source>Discard and switch</source>
        <translation>丢弃并切换</translation>
    </message>
    <message>
        <source>Unsaved changes</source>
        <translation>未保存的更改</translation>
    </message>
    <message>
        <source>Not saved</source>
        <translation>未保存</translation>
    </message>
    <message>
        <source>{what}: not everything could be saved, so nothing else happened.

{why}

Your edits are still there.</source>
        <translation>{what}：有内容没能保存，所以没有继续操作。

{why}

你的编辑都还在。</translation>
    </message>
    <message>
        <source>Not quit</source>
        <translation>未退出</translation>
    </message>
    <message>
        <source>Open a memory root</source>
        <translation>打开记忆根目录</translation>
    </message>
    <message>
        <source>Not switched</source>
        <translation>未切换</translation>
    </message>
    <message>
        <source>the demo root</source>
        <translation>演示根目录</translation>
    </message>
    <message>
        <source>Opening {root}…</source>
        <translation>正在打开 {root}…</translation>
    </message>
    <message>
        <source>Could not open the memory root</source>
        <translation>无法打开记忆根目录</translation>
    </message>
    <message>
        <source>it was not saved (see the tab)</source>
        <translation>没有保存（详见该标签页）</translation>
    </message>
</context>
<context>
    <name>Messages</name>
    <message>
        <source>Someone else changed this memory since you opened it (an agent, the CLI or an editor). Nothing was written. Reload to see the current version.</source>
        <translation>你打开之后，有人（智能体、命令行或编辑器）改动了这份记忆。没有写入任何内容。请重新加载查看当前版本。</translation>
    </message>
    <message>
        <source>Nothing was written: {reasons}</source>
        <translation>没有写入任何内容：{reasons}</translation>
    </message>
    <message>
        <source>Nothing was written: it looks like it contains a credential ({where}).</source>
        <translation>没有写入任何内容：看起来包含凭据（{where}）。</translation>
    </message>
    <message>
        <source>Nothing was written: it looks like it contains a credential.</source>
        <translation>没有写入任何内容：看起来包含凭据。</translation>
    </message>
    <message>
        <source>The memory root is read-only (a read-only mount, or files of another user); nothing was written. Reading works; to edit, make it writable or copy it.</source>
        <translation>记忆根目录是只读的（只读挂载，或属于其他用户的文件）；没有写入任何内容。可以正常读取；要编辑，请让它可写或复制一份。</translation>
    </message>
    <message>
        <source>It no longer exists on disk. Refresh to see the current state.</source>
        <translation>它已不在磁盘上。请刷新查看当前状态。</translation>
    </message>
    <message>
        <source>Permission denied: {path}. Check the folder&apos;s permissions.</source>
        <translation>权限不足：{path}。请检查文件夹的权限。</translation>
    </message>
    <message>
        <source>The file system refused the operation on {path}: {reason}. Memory was left unchanged.</source>
        <translation>文件系统拒绝了对 {path} 的操作：{reason}。记忆没有任何改动。</translation>
    </message>
    <message>
        <source>The file system refused the operation: {reason}. Memory was left unchanged.</source>
        <translation>文件系统拒绝了该操作：{reason}。记忆没有任何改动。</translation>
    </message>
    <message>
        <source>Unexpected error: {kind}: {error}</source>
        <translation>意外错误：{kind}：{error}</translation>
    </message>
</context>
<context>
    <name>Problems</name>
    <message>
        <source>GLOBAL.md can&apos;t be used: {detail}. Fix it in a text editor; the window leaves it as it is</source>
        <translation>GLOBAL.md 无法使用：{detail}。请用文本编辑器修复；本程序不会改动它</translation>
    </message>
    <message>
        <source>the workspace&apos;s scope.json is damaged: {detail}</source>
        <translation>该工作区的 scope.json 已损坏：{detail}</translation>
    </message>
    <message>
        <source>not a valid record: {detail}. Fix it in a text editor; the store never changes it</source>
        <translation>不是有效的记忆条目：{detail}。请用文本编辑器修复；存储层从不改动它</translation>
    </message>
    <message>
        <source>{file} is missing; the next commit to this workspace rebuilds it</source>
        <translation>缺少 {file}；下次向该工作区提交时会重建</translation>
    </message>
    <message>
        <source>{file} is out of date with the records; the next commit to this workspace rebuilds it</source>
        <translation>{file} 与记忆条目不一致；下次向该工作区提交时会重建</translation>
    </message>
    <message>
        <source>an active workspace has the same key; restoring this one needs that one archived or purged first</source>
        <translation>有一个使用中的工作区键相同；要恢复这个，需要先归档或永久删除那个</translation>
    </message>
    <message>
        <source>the memory root is read-only: it can be read but not edited; make it writable (or copy it) to edit memory</source>
        <translation>记忆根目录是只读的：可以读取但无法编辑；请让它可写（或复制一份）后再编辑记忆</translation>
    </message>
    <message>
        <source>a symbolic link or file where the store&apos;s folder belongs; the store never writes through it. Replace it with a real folder (move its contents in)</source>
        <translation>存储文件夹的位置上是一个符号链接或文件；存储层从不通过它写入。请换成真正的文件夹（把内容移进去）</translation>
    </message>
    <message>
        <source>a symbolic link where a workspace folder belongs; the store never reads or writes through it. Move the real folder here or delete the link</source>
        <translation>工作区文件夹的位置上是一个符号链接；存储层从不通过它读写。请把真正的文件夹移到这里，或删除该链接</translation>
    </message>
    <message>
        <source>a file where only workspace folders belong; move it elsewhere</source>
        <translation>这里只应有工作区文件夹，却有一个文件；请把它移到别处</translation>
    </message>
    <message>
        <source>an interrupted change is waiting to be settled; open the memory with write access (any command that writes) to finish or undo it</source>
        <translation>有一个被中断的更改等待处理；以可写方式打开记忆（运行任何会写入的命令）即可完成或撤销它</translation>
    </message>
    <message>
        <source>a damaged internal file was moved aside and never acted on; memory was settled from what is on disk. Look at it (its .why file says why), then delete it</source>
        <translation>一个损坏的内部文件已被移到一旁，从未被执行；记忆已按磁盘上的内容处理。查看它（对应的 .why 文件说明了原因）后再删除</translation>
    </message>
    <message>
        <source>{file} is a symbolic link or not a regular file; the store never replaces it. Replace it with a regular file (the next commit rebuilds MEMORY.md)</source>
        <translation>{file} 是符号链接或不是普通文件；存储层从不替换它。请换成普通文件（下次提交会重建 MEMORY.md）</translation>
    </message>
    <message>
        <source>history of a workspace that no longer exists (purged or deleted by hand); it may hold old secrets. Delete this folder if you don&apos;t need those versions</source>
        <translation>这是一个已不存在的工作区的历史（已永久删除或被手动删除），可能含有旧的机密信息。如果不再需要这些版本，请删除该文件夹</translation>
    </message>
    <message>
        <source>check found 1 problem. Nothing was changed; it says what to do.</source>
        <translation>检查发现 1 个问题。没有改动任何内容；下面说明了该怎么做。</translation>
    </message>
    <message numerus="yes">
        <source>check found %n problems. Nothing was changed; each line says what to do.</source>
        <translation>
            <numerusform>检查发现 %n 个问题。没有改动任何内容；每一行都说明了该怎么做。</numerusform>
        </translation>
    </message>
    <message>
        <source>Problems in this memory root</source>
        <translation>此记忆根目录中的问题</translation>
    </message>
</context>
<context>
    <name>ReadOnly</name>
    <message>
        <source>The memory root is read-only: nothing can be changed here.</source>
        <translation>记忆根目录是只读的：这里无法做任何更改。</translation>
    </message>
</context>
<context>
    <name>RootStatusBar</name>
    <message>
        <source>What check found wrong in this memory root, and what to do</source>
        <translation>检查在此记忆根目录中发现的问题，以及该怎么做</translation>
    </message>
    <message>
        <source>Root: {root}</source>
        <translation>根目录：{root}</translation>
    </message>
    <message>
        <source>{bytes} bytes of memory in this root (Global, workspaces, archived)</source>
        <translation>此根目录中共有 {bytes} 字节的记忆（全局记忆、工作区、已归档）</translation>
    </message>
    <message numerus="yes">
        <source>%n workspace</source>
        <translation>
            <numerusform>%n 个工作区</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n workspaces</source>
        <translation>
            <numerusform>%n 个工作区</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n consolidation review</source>
        <translation>
            <numerusform>%n 个整理审阅</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n consolidation reviews</source>
        <translation>
            <numerusform>%n 个整理审阅</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n agent proposal</source>
        <translation>
            <numerusform>%n 个智能体提议</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n agent proposals</source>
        <translation>
            <numerusform>%n 个智能体提议</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>⚠ %n problem</source>
        <translation>
            <numerusform>⚠ %n 个问题</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>⚠ %n problems</source>
        <translation>
            <numerusform>⚠ %n 个问题</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n archived</source>
        <translation>
            <numerusform>已归档 %n 个</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n pending</source>
        <translation>
            <numerusform>%n 项待处理</numerusform>
        </translation>
    </message>
    <message>
        <source>{reviews} and {proposals} wait for a decision (Session Consolidation tab)</source>
        <translation>{reviews}和{proposals}等待决定（“会话整理”标签页）</translation>
    </message>
</context>
<context>
    <name>_Strip</name>
    <message>
        <source>Dismiss this message</source>
        <translation>关闭此消息</translation>
    </message>
</context>
</TS>
