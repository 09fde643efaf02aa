<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
<context>
    <name>ArchivedWorkspacesModel</name>
    <message>
        <source>Workspace</source>
        <translation>工作区</translation>
    </message>
    <message>
        <source>Folder</source>
        <translation>文件夹</translation>
    </message>
    <message>
        <source>Archived</source>
        <translation>归档时间</translation>
    </message>
    <message>
        <source>Records</source>
        <translation>记忆数</translation>
    </message>
    <message>
        <source>(unknown folder)</source>
        <translation>（文件夹未知）</translation>
    </message>
    <message>
        <source>unknown</source>
        <translation>未知</translation>
    </message>
    <message>
        <source>Folder key: {key}</source>
        <translation>文件夹键：{key}</translation>
    </message>
</context>
<context>
    <name>BatchActions</name>
    <message>
        <source>waiting for review</source>
        <translation>待审阅</translation>
    </message>
    <message>
        <source>no change</source>
        <translation>无更改</translation>
    </message>
    <message>
        <source>already reviewed</source>
        <translation>已审阅</translation>
    </message>
    <message>
        <source>failed</source>
        <translation>失败</translation>
    </message>
    <message>
        <source>cancelled</source>
        <translation>已取消</translation>
    </message>
    <message>
        <source>committed</source>
        <translation>已提交</translation>
    </message>
    <message>
        <source>conflict</source>
        <translation>冲突</translation>
    </message>
    <message>
        <source>queued</source>
        <translation>排队中</translation>
    </message>
    <message>
        <source>running…</source>
        <translation>运行中…</translation>
    </message>
    <message>
        <source>0 of {total}</source>
        <translation>0 / {total}</translation>
    </message>
    <message>
        <source>{done} of {total} done</source>
        <translation>已完成 {done} / {total}</translation>
    </message>
    <message>
        <source>Sessions without a working directory cannot be consolidated.</source>
        <translation>没有工作目录的会话无法整理。</translation>
    </message>
    <message>
        <source>Starting the batch…</source>
        <translation>正在开始批量处理…</translation>
    </message>
    <message>
        <source>Batch: {progress}</source>
        <translation>批量：{progress}</translation>
    </message>
    <message>
        <source>Every stable session of this workspace has been reviewed already.</source>
        <translation>这个工作区的所有稳定会话都已审阅过。</translation>
    </message>
    <message>
        <source>, </source>
        <translation>，</translation>
    </message>
    <message>
        <source>{n} {status}</source>
        <translation>{n} 个{status}</translation>
    </message>
    <message>
        <source>Batch of {n}: {summary}. Each review waits under “Reviews waiting for you”; nothing was committed.</source>
        <translation>批量处理 {n} 个：{summary}。每个审阅都在“等待你审阅”中；尚未提交任何内容。</translation>
    </message>
    <message>
        <source>Cancelled.</source>
        <translation>已取消。</translation>
    </message>
    <message>
        <source>The batch stopped: {why}</source>
        <translation>批量处理已停止：{why}</translation>
    </message>
</context>
<context>
    <name>ChangeDiffPanel</name>
    <message>
        <source>Show hidden values</source>
        <translation>显示隐藏的值</translation>
    </message>
    <message>
        <source>This change holds what looks like a credential; it is hidden. Click to show it.</source>
        <translation>这项更改含有疑似凭据的内容，已隐藏。点击即可显示。</translation>
    </message>
    <message>
        <source>Unified</source>
        <translation>统一视图</translation>
    </message>
    <message>
        <source>Side by side</source>
        <translation>并排</translation>
    </message>
    <message>
        <source>Hide values</source>
        <translation>隐藏敏感值</translation>
    </message>
    <message>
        <source>This change writes nothing new.</source>
        <translation>这项更改不会写入新内容。</translation>
    </message>
    <message>
        <source>Select a change to see what it does to memory.</source>
        <translation>选择一项更改，查看它会对记忆做什么。</translation>
    </message>
</context>
<context>
    <name>ConnectionText</name>
    <message>
        <source>Connected to {url} in {ms} ms.</source>
        <translation>已连接 {url}，用时 {ms} 毫秒。</translation>
    </message>
    <message>
        <source>It does not list the model {model}, though.</source>
        <translation>不过它的模型列表里没有 {model}。</translation>
    </message>
    <message>
        <source>Connection OK</source>
        <translation>连接正常</translation>
    </message>
    <message>
        <source>Key refused (HTTP {code})</source>
        <translation>密钥被拒绝（HTTP {code}）</translation>
    </message>
    <message>
        <source>{url} refused the key. Check the key in the variable {env}.</source>
        <translation>{url} 拒绝了密钥。请检查变量 {env} 中的密钥。</translation>
    </message>
    <message>
        <source>(none)</source>
        <translation>（无）</translation>
    </message>
    <message>
        <source>{url} answered HTTP {code}.</source>
        <translation>{url} 返回 HTTP {code}。</translation>
    </message>
    <message>
        <source>HTTP {code}</source>
        <translation>HTTP {code}</translation>
    </message>
    <message>
        <source>API key variable not set</source>
        <translation>未设置 API 密钥变量</translation>
    </message>
    <message>
        <source>The variable {env} is not set in this environment. Set it where the app is started, then test again.</source>
        <translation>当前环境中没有设置变量 {env}。请在启动应用的环境中设置它，然后再测试。</translation>
    </message>
    <message>
        <source>Timed out</source>
        <translation>超时</translation>
    </message>
    <message>
        <source>{url} did not answer within {seconds} s. Try again, or raise the request timeout.</source>
        <translation>{url} 在 {seconds} 秒内没有响应。请重试，或调高请求超时。</translation>
    </message>
    <message>
        <source>Host name not found</source>
        <translation>找不到主机名</translation>
    </message>
    <message>
        <source>The host name {host} could not be resolved. Check the base URL for typos, and this computer&apos;s network or DNS settings.</source>
        <translation>无法解析主机名 {host}。请检查基础 URL 是否有拼写错误，以及这台电脑的网络或 DNS 设置。</translation>
    </message>
    <message>
        <source>Connection refused</source>
        <translation>连接被拒绝</translation>
    </message>
    <message>
        <source>Nothing is listening at {url}: check the base URL and that the server is running.</source>
        <translation>{url} 上没有服务在监听：请检查基础 URL，并确认服务器正在运行。</translation>
    </message>
    <message>
        <source>Could not connect</source>
        <translation>无法连接</translation>
    </message>
    <message>
        <source>Could not reach {url}. Check the base URL and the network connection.</source>
        <translation>无法访问 {url}。请检查基础 URL 和网络连接。</translation>
    </message>
</context>
<context>
    <name>ConsolidationTab</name>
    <message>
        <source>Show</source>
        <translation>显示</translation>
    </message>
    <message>
        <source>Session Consolidation</source>
        <translation>会话整理</translation>
    </message>
    <message>
        <source>Runs the configured chat model</source>
        <translation>运行已配置的聊天模型</translation>
    </message>
    <message>
        <source>Could not remember the consolidator in settings.yml: {why}</source>
        <translation>无法把整理器选择保存到 settings.yml：{why}</translation>
    </message>
    <message>
        <source>Sync review</source>
        <translation>同步审阅</translation>
    </message>
    <message>
        <source>Could not list DSH sessions: {why}</source>
        <translation>无法列出 DSH 会话：{why}</translation>
    </message>
    <message>
        <source>“{title}” is still live ({why}). Try again when it is quiet.</source>
        <translation>“{title}”仍在进行中（{why}）。等它停下来后再试。</translation>
    </message>
    <message>
        <source>Running the offline extractor…</source>
        <translation>正在运行离线提取器…</translation>
    </message>
    <message>
        <source>Running the model…</source>
        <translation>正在运行模型…</translation>
    </message>
    <message>
        <source>Cancelling… (nothing will be written)</source>
        <translation>正在取消…（不会写入任何内容）</translation>
    </message>
    <message>
        <source>This session was already reviewed with this consolidator ({status}); here is its receipt. Nothing was run again.</source>
        <translation>这个会话已经用这个整理器审阅过（{status}）；这是它的回执。没有重新运行。</translation>
    </message>
    <message>
        <source>Run again anyway</source>
        <translation>仍然重新运行</translation>
    </message>
    <message>
        <source>The consolidator found nothing new to remember in this session (no change).</source>
        <translation>整理器没有在这个会话中发现需要记住的新内容（无更改）。</translation>
    </message>
    <message>
        <source>Cancelled. Nothing was written.</source>
        <translation>已取消。没有写入任何内容。</translation>
    </message>
    <message>
        <source>Consolidation failed: {why}</source>
        <translation>整理失败：{why}</translation>
    </message>
    <message>
        <source>Edited {target}; it is accepted as edited.</source>
        <translation>已编辑 {target}；将按编辑后的内容接受。</translation>
    </message>
    <message>
        <source>Reject every change?</source>
        <translation>拒绝所有更改？</translation>
    </message>
    <message>
        <source>No change is selected. Record this review as rejected? Nothing is written to memory.</source>
        <translation>没有选中任何更改。将这次审阅记录为已拒绝？不会写入记忆。</translation>
    </message>
    <message>
        <source>Reject all</source>
        <translation>全部拒绝</translation>
    </message>
    <message>
        <source>Change GLOBAL.md?</source>
        <translation>修改 GLOBAL.md？</translation>
    </message>
    <message>
        <source>You accepted a change to GLOBAL.md, which every workspace loads. Commit it only if it is about you in general, not about this project.</source>
        <translation>你接受了对 GLOBAL.md 的更改，所有工作区都会加载它。只有当它是关于你本人的通用信息、而不是这个项目时才提交。</translation>
    </message>
    <message>
        <source>Change GLOBAL.md</source>
        <translation>修改 GLOBAL.md</translation>
    </message>
    <message>
        <source>Committing…</source>
        <translation>正在提交…</translation>
    </message>
    <message>
        <source>Committed</source>
        <translation>已提交</translation>
    </message>
    <message>
        <source>Committed part of the proposal</source>
        <translation>已提交部分提议</translation>
    </message>
    <message>
        <source>Rejected every change; nothing was written</source>
        <translation>已拒绝所有更改；没有写入任何内容</translation>
    </message>
    <message>
        <source>Deleted the pending review; nothing was written</source>
        <translation>已删除待审阅项；没有写入任何内容</translation>
    </message>
    <message>
        <source>Nothing to write</source>
        <translation>没有需要写入的内容</translation>
    </message>
    <message>
        <source>{what}: {counts}. Receipt {id}.</source>
        <translation>{what}：{counts}。回执 {id}。</translation>
    </message>
    <message>
        <source>Delete this review</source>
        <translation>删除这个审阅</translation>
    </message>
    <message>
        <source>Nothing was committed: {why}</source>
        <translation>没有提交任何内容：{why}</translation>
    </message>
    <message>
        <source>Memory changed while you were reviewing (an agent, the CLI or another window wrote to it). Nothing was written. The proposal has been checked again against the current memory: review the diffs and accept again.</source>
        <translation>你审阅期间记忆发生了变化（智能体、命令行或其他窗口写入了内容）。没有写入任何内容。已根据当前记忆重新检查了提议：请查看差异后再次接受。</translation>
    </message>
    <message>
        <source>Model (not configured)</source>
        <translation>模型（未配置）</translation>
    </message>
    <message>
        <source>Custom: {model} at {url}</source>
        <translation>自定义：{url} 上的 {model}</translation>
    </message>
    <message>
        <source>Model: {name}</source>
        <translation>模型：{name}</translation>
    </message>
</context>
<context>
    <name>DeletedRecordsModel</name>
    <message>
        <source>Record</source>
        <translation>记忆</translation>
    </message>
    <message>
        <source>Workspace</source>
        <translation>工作区</translation>
    </message>
    <message>
        <source>When</source>
        <translation>时间</translation>
    </message>
    <message>
        <source>What happened</source>
        <translation>发生了什么</translation>
    </message>
    <message>
        <source>Deleted, restored since</source>
        <translation>已删除，之后已恢复</translation>
    </message>
    <message>
        <source>Deleted</source>
        <translation>已删除</translation>
    </message>
    <message>
        <source>Earlier version</source>
        <translation>早期版本</translation>
    </message>
    <message>
        <source>Global</source>
        <translation>全局记忆</translation>
    </message>
    <message>
        <source>{name} in {where}
{when} · {size} bytes</source>
        <translation>{name}，位于 {where}
{when} · {size} 字节</translation>
    </message>
</context>
<context>
    <name>ForeignEntriesModel</name>
    <message>
        <source>active</source>
        <translation>活动</translation>
    </message>
    <message>
        <source>conflict</source>
        <translation>冲突</translation>
    </message>
    <message>
        <source>superseded</source>
        <translation>已被取代</translation>
    </message>
    <message>
        <source>deleted</source>
        <translation>已删除</translation>
    </message>
    <message>
        <source>unknown</source>
        <translation>未知</translation>
    </message>
    <message>
        <source>Title</source>
        <translation>标题</translation>
    </message>
    <message>
        <source>Status</source>
        <translation>状态</translation>
    </message>
    <message>
        <source>Store</source>
        <translation>存储</translation>
    </message>
    <message>
        <source>What that store says about the entry: superseded, conflicting and deleted entries are shown too</source>
        <translation>那个存储对这个条目的标记：已被取代、有冲突和已删除的条目也会显示</translation>
    </message>
    <message>
        <source>Which memory store holds the entry (read-only here)</source>
        <translation>条目所在的记忆存储（这里只读）</translation>
    </message>
    <message>
        <source>updated {when}</source>
        <translation>更新于 {when}</translation>
    </message>
</context>
<context>
    <name>ImportActions</name>
    <message>
        <source>Looking for other memory stores…</source>
        <translation>正在查找其他记忆存储…</translation>
    </message>
    <message>
        <source>Import</source>
        <translation>导入</translation>
    </message>
    <message>
        <source>No other memory store with entries was found on this machine.</source>
        <translation>这台电脑上没有找到其他含有条目的记忆存储。</translation>
    </message>
    <message>
        <source>Import memory</source>
        <translation>导入记忆</translation>
    </message>
    <message>
        <source>Which store should be imported? You review every change before anything is written; the other store is only read.</source>
        <translation>要导入哪个存储？写入之前你会审阅每一项更改；另一个存储只会被读取。</translation>
    </message>
    <message>
        <source>Preparing the import from {store}…</source>
        <translation>正在准备从 {store} 导入…</translation>
    </message>
    <message>
        <source>Global</source>
        <translation>全局记忆</translation>
    </message>
    <message>
        <source>1 review from {store}; nothing is written until you commit.</source>
        <translation>来自 {store} 的 1 个审阅；提交之前不会写入任何内容。</translation>
    </message>
    <message numerus="yes">
        <source>%n reviews from {store}; nothing is written until you commit.</source>
        <translation>
            <numerusform>来自 {store} 的 %n 个审阅；提交之前不会写入任何内容。</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Skipped %n: {which}</source>
        <translation>
            <numerusform>跳过 %n 项：{which}</numerusform>
        </translation>
    </message>
    <message>
        <source>Import failed: {why}. Nothing was written.</source>
        <translation>导入失败：{why}。没有写入任何内容。</translation>
    </message>
</context>
<context>
    <name>MergeReview</name>
    <message>
        <source>Differences</source>
        <translation>差异</translation>
    </message>
    <message>
        <source>Mine</source>
        <translation>我的</translation>
    </message>
    <message>
        <source>Theirs</source>
        <translation>对方的</translation>
    </message>
    <message>
        <source>Base</source>
        <translation>共同基础</translation>
    </message>
    <message>
        <source>Keep mine</source>
        <translation>保留我的</translation>
    </message>
    <message>
        <source>Take theirs</source>
        <translation>采用对方的</translation>
    </message>
    <message>
        <source>Use the edited text</source>
        <translation>使用编辑后的文本</translation>
    </message>
    <message>
        <source>Result (edit it to combine both):</source>
        <translation>结果（可编辑以合并两者）：</translation>
    </message>
    <message>
        <source>to choose</source>
        <translation>待选择</translation>
    </message>
    <message>
        <source>edited</source>
        <translation>已编辑</translation>
    </message>
    <message>
        <source>Nothing to review.</source>
        <translation>没有需要审阅的内容。</translation>
    </message>
    <message>
        <source>(deleted on this side)</source>
        <translation>（这一侧已删除）</translation>
    </message>
    <message>
        <source>The texts are the same.</source>
        <translation>两边文本相同。</translation>
    </message>
</context>
<context>
    <name>MissingFoldersPanel</name>
    <message>
        <source>Folder missing</source>
        <translation>文件夹不存在</translation>
    </message>
    <message>
        <source>Moved? Pick the new folder…</source>
        <translation>移动了？选择新文件夹…</translation>
    </message>
    <message>
        <source>Archive</source>
        <translation>归档</translation>
    </message>
    <message>
        <source>Agents no longer load these workspaces: their folder is gone (moved, renamed, or on another machine). Point each at its new folder, or archive it.</source>
        <translation>智能体不再加载这些工作区：它们的文件夹已不存在（被移动、改名，或在另一台电脑上）。请为每个工作区指定新文件夹，或将其归档。</translation>
    </message>
    <message>
        <source>Move the workspace {name} ({folder}) to the Recycle Bin? You can restore it later.</source>
        <translation>将工作区 {name}（{folder}）移到回收站？之后可以恢复。</translation>
    </message>
    <message>
        <source>Archive workspace?</source>
        <translation>归档工作区？</translation>
    </message>
</context>
<context>
    <name>ModelChoicesModel</name>
    <message>
        <source>Custom OpenAI-compatible endpoint…</source>
        <translation>自定义 OpenAI 兼容端点…</translation>
    </message>
    <message>
        <source>  —  key from {name}</source>
        <translation>  —  密钥取自 {name}</translation>
    </message>
    <message>
        <source>  —  no API key</source>
        <translation>  —  无 API 密钥</translation>
    </message>
    <message>
        <source>DSH&apos;s default model ({label})</source>
        <translation>DSH 的默认模型（{label}）</translation>
    </message>
    <message>
        <source>Any OpenAI-compatible chat-completions endpoint: base URL, model and key variable name</source>
        <translation>任意兼容 OpenAI 的 chat-completions 端点：基础 URL、模型和密钥变量名</translation>
    </message>
    <message>
        <source>API key read from the environment variable {name}</source>
        <translation>API 密钥从环境变量 {name} 读取</translation>
    </message>
    <message>
        <source>no API key</source>
        <translation>无 API 密钥</translation>
    </message>
    <message>
        <source>{model} at {url}</source>
        <translation>{model}，位于 {url}</translation>
    </message>
</context>
<context>
    <name>MoveDialog</name>
    <message>
        <source>Moved? Pick the new folder</source>
        <translation>移动了？选择新文件夹</translation>
    </message>
    <message>
        <source>The folder of “{name}” no longer exists:
{cwd}

Where is the project now?</source>
        <translation>“{name}”的文件夹已不存在：
{cwd}

项目现在在哪里？</translation>
    </message>
    <message>
        <source>Looking for it by its git remote and its folder name…</source>
        <translation>正在按 git 远程地址和文件夹名查找…</translation>
    </message>
    <message>
        <source>Other folder…</source>
        <translation>其他文件夹…</translation>
    </message>
    <message>
        <source>Continue</source>
        <translation>继续</translation>
    </message>
    <message>
        <source>Already in that folder&apos;s workspace</source>
        <translation>该文件夹工作区中已有的</translation>
    </message>
    <message>
        <source>Moved</source>
        <translation>移过来的</translation>
    </message>
    <message>
        <source>Keep the one already there</source>
        <translation>保留已有的</translation>
    </message>
    <message>
        <source>Take the moved one</source>
        <translation>采用移过来的</translation>
    </message>
    <message>
        <source>Move</source>
        <translation>移动</translation>
    </message>
    <message>
        <source>Back</source>
        <translation>返回</translation>
    </message>
    <message>
        <source>same git remote</source>
        <translation>相同的 git 远程地址</translation>
    </message>
    <message>
        <source>same folder name</source>
        <translation>相同的文件夹名</translation>
    </message>
    <message>
        <source>similar folder name</source>
        <translation>相似的文件夹名</translation>
    </message>
    <message numerus="yes">
        <source>%n possible folder(s) found.</source>
        <translation>
            <numerusform>找到 %n 个可能的文件夹。</numerusform>
        </translation>
    </message>
    <message>
        <source>Nothing found nearby; pick the folder yourself.</source>
        <translation>附近没有找到；请自己选择文件夹。</translation>
    </message>
    <message>
        <source>The project&apos;s new folder</source>
        <translation>项目的新文件夹</translation>
    </message>
    <message>
        <source>Move “{name}” to {folder}.</source>
        <translation>将“{name}”移动到 {folder}。</translation>
    </message>
    <message numerus="yes">
        <source>Records moving over as they are: %n.</source>
        <translation>
            <numerusform>原样移过去的记忆：%n 条。</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>That folder already has a workspace; identical in both: %n.</source>
        <translation>
            <numerusform>该文件夹已有工作区；两边完全相同的：%n 条。</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>In both with different texts: %n. Choose for each (nothing is overwritten unseen; a replaced version stays in history).</source>
        <translation>
            <numerusform>两边都有但内容不同的：%n 条。请逐条选择（不会在你看不到的情况下覆盖；被替换的版本保留在历史中）。</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Invalid files staying in the Recycle Bin copy: %n.</source>
        <translation>
            <numerusform>留在回收站副本中的无效文件：%n 个。</numerusform>
        </translation>
    </message>
    <message>
        <source>The old copy goes to the Recycle Bin; a receipt records the move.</source>
        <translation>旧副本进入回收站；回执会记录这次移动。</translation>
    </message>
</context>
<context>
    <name>PendingActions</name>
    <message>
        <source>Recovered an interrupted commit — {what}</source>
        <translation>已恢复一次中断的提交 — {what}</translation>
    </message>
    <message>
        <source>Not used: {what}</source>
        <translation>未使用：{what}</translation>
    </message>
    <message>
        <source>Memory changed since the agent read it: committing will ask you to review the fresh diffs first.</source>
        <translation>智能体读取之后记忆已发生变化：提交时会先请你审阅最新的差异。</translation>
    </message>
    <message>
        <source>Reject this agent proposal?</source>
        <translation>拒绝这个智能体提议？</translation>
    </message>
    <message>
        <source>Reject this agent proposal? Nothing is written to memory; its receipt records that it was rejected.</source>
        <translation>拒绝这个智能体提议？不会写入记忆；它的回执会记录为已拒绝。</translation>
    </message>
    <message>
        <source>Reject</source>
        <translation>拒绝</translation>
    </message>
    <message>
        <source>Delete this pending review?</source>
        <translation>删除这个待审阅项？</translation>
    </message>
    <message>
        <source>Delete this pending review? Nothing is written to memory; its receipt records that it was discarded.</source>
        <translation>删除这个待审阅项？不会写入记忆；它的回执会记录为已丢弃。</translation>
    </message>
    <message>
        <source>Delete</source>
        <translation>删除</translation>
    </message>
    <message>
        <source>Merged into {target}: review the merged text next to the existing one.</source>
        <translation>已合并到 {target}：请对照现有内容检查合并后的文本。</translation>
    </message>
</context>
<context>
    <name>PendingListModel</name>
    <message>
        <source>Memory changed since this was proposed: its diffs are shown against memory as it is now.</source>
        <translation>提议之后记忆已发生变化：这里的差异是与当前记忆对比的结果。</translation>
    </message>
    <message>
        <source>review {id}</source>
        <translation>审阅 {id}</translation>
    </message>
    <message>
        <source>⚠ memory changed since</source>
        <translation>⚠ 之后记忆已变化</translation>
    </message>
</context>
<context>
    <name>PendingPanel</name>
    <message>
        <source>Sessions</source>
        <translation>会话</translation>
    </message>
    <message>
        <source>Agent proposals</source>
        <translation>智能体提议</translation>
    </message>
    <message>
        <source>Imports</source>
        <translation>导入</translation>
    </message>
    <message>
        <source>Reviews waiting for you (kept across restarts)</source>
        <translation>等待你审阅（重启后仍保留）</translation>
    </message>
    <message>
        <source>Agent proposals waiting for you</source>
        <translation>等待你处理的智能体提议</translation>
    </message>
    <message>
        <source>Imports waiting for you</source>
        <translation>等待你审阅的导入</translation>
    </message>
    <message>
        <source>No pending reviews.</source>
        <translation>没有待审阅项。</translation>
    </message>
    <message>
        <source>No agent proposals. An agent connected over MCP in review mode proposes changes here.</source>
        <translation>没有智能体提议。以审阅模式通过 MCP 连接的智能体会在这里提议更改。</translation>
    </message>
    <message>
        <source>No imports under review. Import… reads another tool&apos;s memory for you to review.</source>
        <translation>没有待审阅的导入。“导入…”会读取其他工具的记忆供你审阅。</translation>
    </message>
    <message>
        <source>Import…</source>
        <translation>导入…</translation>
    </message>
    <message>
        <source>Read memory kept by another tool and review what it would add</source>
        <translation>读取其他工具保存的记忆，并审阅它将添加的内容</translation>
    </message>
    <message>
        <source>Delete</source>
        <translation>删除</translation>
    </message>
    <message>
        <source>Delete this pending review (nothing is written to memory)</source>
        <translation>删除这个待审阅项（不会写入记忆）</translation>
    </message>
    <message>
        <source>Reject</source>
        <translation>拒绝</translation>
    </message>
</context>
<context>
    <name>PurgeDialog</name>
    <message>
        <source>folder unknown</source>
        <translation>文件夹未知</translation>
    </message>
    <message>
        <source>This permanently deletes the archived workspace “{name}” ({folder}) and its record.</source>
        <translation>这会永久删除已归档的工作区“{name}”（{folder}）及其中的 1 条记忆。</translation>
    </message>
    <message numerus="yes">
        <source>This permanently deletes the archived workspace “{name}” ({folder}) and its %n records.</source>
        <translation>
            <numerusform>这会永久删除已归档的工作区“{name}”（{folder}）及其 %n 条记忆。</numerusform>
        </translation>
    </message>
    <message>
        <source> It also deletes the kept history of this workspace: 1 earlier deleted record or earlier version you could otherwise still restore.</source>
        <translation>同时会删除这个工作区保留的历史：1 条之前删除的记忆或早期版本，删除后将无法再恢复。</translation>
    </message>
    <message numerus="yes">
        <source> It also deletes the kept history of this workspace: %n earlier deleted records or earlier versions you could otherwise still restore.</source>
        <translation>
            <numerusform>同时会删除这个工作区保留的历史：%n 条之前删除的记忆或早期版本，删除后将无法再恢复。</numerusform>
        </translation>
    </message>
    <message>
        <source> Synced history will be rewritten without it: the next sync replaces the remote&apos;s history, and your other machines must sync to remove their copies.</source>
        <translation>同步历史也会被改写、不再含有它：下一次同步会替换远端的历史，你的其他机器需要同步一次才会删除各自的副本。</translation>
    </message>
    <message>
        <source> This cannot be undone.</source>
        <translation>此操作无法撤销。</translation>
    </message>
    <message>
        <source>Type the full key “{key}” of its folder to confirm (its scope.json could not be read):</source>
        <translation>请输入它文件夹的完整键“{key}”确认（无法读取它的 scope.json）：</translation>
    </message>
    <message>
        <source>Type the workspace name “{key}” to confirm:</source>
        <translation>请输入工作区名称“{key}”确认：</translation>
    </message>
    <message>
        <source>Delete archived workspace forever</source>
        <translation>永久删除已归档的工作区</translation>
    </message>
    <message>
        <source>Delete forever</source>
        <translation>永久删除</translation>
    </message>
    <message>
        <source>Not the name yet: type “{name}” exactly.</source>
        <translation>名称还不对：请准确输入“{name}”。</translation>
    </message>
</context>
<context>
    <name>ReceiptListModel</name>
    <message>
        <source>unreadable</source>
        <translation>无法读取</translation>
    </message>
</context>
<context>
    <name>ReceiptText</name>
    <message>
        <source>waiting for review</source>
        <translation>待审阅</translation>
    </message>
    <message>
        <source>committed</source>
        <translation>已提交</translation>
    </message>
    <message>
        <source>partly committed</source>
        <translation>部分提交</translation>
    </message>
    <message>
        <source>rejected</source>
        <translation>已拒绝</translation>
    </message>
    <message>
        <source>nothing to remember</source>
        <translation>没有需要记住的内容</translation>
    </message>
    <message>
        <source>failed</source>
        <translation>失败</translation>
    </message>
    <message>
        <source>memory changed meanwhile</source>
        <translation>期间记忆已变化</translation>
    </message>
    <message>
        <source>deleted without writing</source>
        <translation>已删除，未写入</translation>
    </message>
    <message>
        <source>write record</source>
        <translation>写入记忆</translation>
    </message>
    <message>
        <source>delete record</source>
        <translation>删除记忆</translation>
    </message>
    <message>
        <source>replace GLOBAL.md</source>
        <translation>替换 GLOBAL.md</translation>
    </message>
    <message>
        <source>no change</source>
        <translation>无更改</translation>
    </message>
    <message>
        <source>waiting</source>
        <translation>等待中</translation>
    </message>
    <message>
        <source>accepted</source>
        <translation>已接受</translation>
    </message>
    <message>
        <source>refused by the checks</source>
        <translation>未通过检查</translation>
    </message>
    <message>
        <source>accepted as edited</source>
        <translation>按编辑后接受</translation>
    </message>
    <message>
        <source>nothing to write</source>
        <translation>无需写入</translation>
    </message>
    <message>
        <source>no change proposed</source>
        <translation>没有提议任何更改</translation>
    </message>
    <message>
        <source>1 change proposed</source>
        <translation>共提议 1 项更改</translation>
    </message>
    <message numerus="yes">
        <source>%n changes proposed</source>
        <translation>
            <numerusform>共提议 %n 项更改</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n accepted</source>
        <translation>
            <numerusform>已接受 %n 项</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n accepted as edited</source>
        <translation>
            <numerusform>%n 项按编辑后接受</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n rejected</source>
        <translation>
            <numerusform>已拒绝 %n 项</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n refused by the checks</source>
        <translation>
            <numerusform>%n 项未通过检查</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n waiting for review</source>
        <translation>
            <numerusform>%n 项待审阅</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n with nothing to write</source>
        <translation>
            <numerusform>%n 项无需写入</numerusform>
        </translation>
    </message>
    <message>
        <source>, </source>
        <translation>，</translation>
    </message>
    <message>
        <source>**Status:** {status}</source>
        <translation>**状态**：{status}</translation>
    </message>
    <message>
        <source>**Changes:** {counts}</source>
        <translation>**更改**：{counts}</translation>
    </message>
    <message>
        <source>- Session `{session}`, seqs {first}–{last}</source>
        <translation>- 会话 `{session}`，序号 {first}–{last}</translation>
    </message>
    <message>
        <source>- Workspace `{key}` ({cwd})</source>
        <translation>- 工作区 `{key}`（{cwd}）</translation>
    </message>
    <message>
        <source>- Consolidator: {name}</source>
        <translation>- 整理器：{name}</translation>
    </message>
    <message>
        <source>- Last updated: {when}</source>
        <translation>- 最后更新：{when}</translation>
    </message>
    <message>
        <source>- Receipt file: `reviews/{id}.md`</source>
        <translation>- 回执文件：`reviews/{id}.md`</translation>
    </message>
    <message>
        <source>- Error: {error}</source>
        <translation>- 错误：{error}</translation>
    </message>
    <message>
        <source>Change</source>
        <translation>更改</translation>
    </message>
    <message>
        <source>File</source>
        <translation>文件</translation>
    </message>
    <message>
        <source>Decision</source>
        <translation>决定</translation>
    </message>
</context>
<context>
    <name>RecycleBinTab</name>
    <message>
        <source>Cannot restore “{name}”: its workspace “{workspace}” is itself in the Recycle Bin. Restore the workspace first, then restore this record.</source>
        <translation>无法恢复“{name}”：它所在的工作区“{workspace}”本身在回收站里。请先恢复工作区，再恢复这条记忆。</translation>
    </message>
    <message>
        <source>Cannot restore “{name}”: its workspace no longer exists and its folder is unknown. Open the record here, copy its text and add it in the Workspace tab.</source>
        <translation>无法恢复“{name}”：它的工作区已不存在，文件夹也未知。请在这里打开这条记忆，复制内容，再到“工作区”标签页中添加。</translation>
    </message>
    <message>
        <source>Restore record</source>
        <translation>恢复记忆</translation>
    </message>
    <message>
        <source>The workspace “{workspace}” ({folder}) no longer exists.

Create it again and restore “{name}” into it?</source>
        <translation>工作区“{workspace}”（{folder}）已不存在。

要重新创建它并把“{name}”恢复进去吗？</translation>
    </message>
    <message>
        <source>Create and restore</source>
        <translation>重新创建并恢复</translation>
    </message>
    <message>
        <source>“{name}” in “{workspace}” is already this version; nothing to restore.</source>
        <translation>“{workspace}”中的“{name}”已经是这个版本，无需恢复。</translation>
    </message>
    <message>
        <source>Replace record</source>
        <translation>替换记忆</translation>
    </message>
    <message>
        <source>“{workspace}” has a record named “{name}” now.

Replace it with the version shown here? The current version is kept in history.</source>
        <translation>“{workspace}”中现在已有名为“{name}”的记忆。

用这里显示的版本替换它吗？当前版本会保留在历史中。</translation>
    </message>
    <message>
        <source>Replace</source>
        <translation>替换</translation>
    </message>
    <message>
        <source>Could not restore “{name}”: {why}</source>
        <translation>无法恢复“{name}”：{why}</translation>
    </message>
    <message>
        <source>Restored “{name}” into “{workspace}”. It is in the Workspace tab again.</source>
        <translation>已将“{name}”恢复到“{workspace}”。它已重新出现在“工作区”标签页中。</translation>
    </message>
    <message>
        <source>Restore a version with a credential</source>
        <translation>恢复含有凭据的版本</translation>
    </message>
    <message>
        <source>This version of “{name}” holds what looks like a credential ({what})

Agents that load this workspace will see it. Restore it anyway?</source>
        <translation>“{name}”的这个版本含有疑似凭据的内容（{what}）

加载这个工作区的智能体都会看到它。仍然恢复吗？</translation>
    </message>
    <message>
        <source>Restore anyway</source>
        <translation>仍然恢复</translation>
    </message>
    <message>
        <source>Nothing was restored; “{name}” stays in the Recycle Bin.</source>
        <translation>没有恢复任何内容；“{name}”仍在回收站中。</translation>
    </message>
    <message>
        <source>“{workspace}” changed while you were deciding (an agent or another window wrote to it). Nothing was restored. The list has been refreshed: look again and restore “{name}” if you still want it.</source>
        <translation>你确认期间“{workspace}”发生了变化（智能体或其他窗口写入了内容）。没有恢复任何内容。列表已刷新：请重新查看，如仍需要再恢复“{name}”。</translation>
    </message>
    <message>
        <source>Restore Global</source>
        <translation>恢复全局记忆</translation>
    </message>
    <message>
        <source>Replace GLOBAL.md with this earlier version from {when}?

The current GLOBAL.md is kept in history.</source>
        <translation>用 {when} 的这个早期版本替换 GLOBAL.md？

当前的 GLOBAL.md 会保留在历史中。</translation>
    </message>
    <message>
        <source>GLOBAL.md is back to the version shown here.</source>
        <translation>GLOBAL.md 已恢复为这里显示的版本。</translation>
    </message>
    <message>
        <source>GLOBAL.md changed while you were deciding. Nothing was restored; look again.</source>
        <translation>在你确认期间 GLOBAL.md 发生了变化。没有恢复任何内容，请重新查看。</translation>
    </message>
    <message>
        <source>Could not restore GLOBAL.md: {why}</source>
        <translation>无法恢复 GLOBAL.md：{why}</translation>
    </message>
    <message>
        <source>that version is not valid UTF-8 text.</source>
        <translation>那个版本不是有效的 UTF-8 文本。</translation>
    </message>
    <message>
        <source>Filter by workspace, folder or record name…</source>
        <translation>按工作区、文件夹或记忆名称筛选…</translation>
    </message>
    <message>
        <source>Also show earlier versions of edited records</source>
        <translation>同时显示已编辑记忆的早期版本</translation>
    </message>
    <message>
        <source>Refresh</source>
        <translation>刷新</translation>
    </message>
    <message>
        <source>Select an archived workspace or a deleted record to preview it.</source>
        <translation>选择一个已归档的工作区或已删除的记忆进行预览。</translation>
    </message>
    <message>
        <source>Restore</source>
        <translation>恢复</translation>
    </message>
    <message>
        <source>Put the selected workspace or record back exactly as it was</source>
        <translation>把所选的工作区或记忆原样恢复</translation>
    </message>
    <message>
        <source>Delete forever…</source>
        <translation>永久删除…</translation>
    </message>
    <message>
        <source>Delete the selected archived workspace for good (asks for its name)</source>
        <translation>永久删除所选的已归档工作区（需要输入名称确认）</translation>
    </message>
    <message>
        <source>Archived workspaces</source>
        <translation>已归档的工作区</translation>
    </message>
    <message>
        <source>Deleted records</source>
        <translation>已删除的记忆</translation>
    </message>
    <message>
        <source>Preview</source>
        <translation>预览</translation>
    </message>
    <message>
        <source>Recycle Bin</source>
        <translation>回收站</translation>
    </message>
    <message>
        <source>Could not read the Recycle Bin: {why}</source>
        <translation>无法读取回收站：{why}</translation>
    </message>
    <message>
        <source>The Recycle Bin holds no archived workspaces.</source>
        <translation>回收站中没有已归档的工作区。</translation>
    </message>
    <message>
        <source>1 archived workspace</source>
        <translation>1 个已归档工作区</translation>
    </message>
    <message numerus="yes">
        <source>%n archived workspaces</source>
        <translation>
            <numerusform>%n 个已归档工作区</numerusform>
        </translation>
    </message>
    <message>
        <source>Nothing in the kept history.</source>
        <translation>保留的历史中没有内容。</translation>
    </message>
    <message>
        <source>1 entry (kept for {days} days)</source>
        <translation>1 个条目（保留 {days} 天）</translation>
    </message>
    <message numerus="yes">
        <source>%n entries (kept for {days} days)</source>
        <translation>
            <numerusform>%n 个条目（保留 {days} 天）</numerusform>
        </translation>
    </message>
    <message>
        <source>1 deleted record (kept for {days} days)</source>
        <translation>1 条已删除记忆（保留 {days} 天）</translation>
    </message>
    <message numerus="yes">
        <source>%n deleted records (kept for {days} days)</source>
        <translation>
            <numerusform>%n 条已删除记忆（保留 {days} 天）</numerusform>
        </translation>
    </message>
    <message>
        <source>Archived workspace “{name}”</source>
        <translation>已归档的工作区“{name}”</translation>
    </message>
    <message>
        <source>Loading…</source>
        <translation>正在加载…</translation>
    </message>
    <message>
        <source>Could not read this archived workspace: {why}</source>
        <translation>无法读取这个已归档的工作区：{why}</translation>
    </message>
    <message>
        <source>Deleted record “{name}” from {where}, {when}</source>
        <translation>已删除的记忆“{name}”，来自 {where}，{when}</translation>
    </message>
    <message>
        <source>Earlier version of “{name}” from {where}, {when}</source>
        <translation>“{name}”的早期版本，来自 {where}，{when}</translation>
    </message>
    <message>
        <source>Could not read this record: {why}</source>
        <translation>无法读取这条记忆：{why}</translation>
    </message>
    <message>
        <source>Restore this version</source>
        <translation>恢复这个版本</translation>
    </message>
    <message>
        <source>Restored “{name}” ({folder}) with its record. It is back in the Workspace tab exactly as it was.</source>
        <translation>已恢复“{name}”（{folder}）及其中的 1 条记忆。它已原样回到“工作区”标签页。</translation>
    </message>
    <message numerus="yes">
        <source>Restored “{name}” ({folder}) with its %n records. It is back in the Workspace tab exactly as it was.</source>
        <translation>
            <numerusform>已恢复“{name}”（{folder}）及其 %n 条记忆。它已原样回到“工作区”标签页。</numerusform>
        </translation>
    </message>
    <message>
        <source>Deleted “{name}” forever: the archived workspace and its record are gone.</source>
        <translation>已永久删除“{name}”：这个已归档工作区及其中的 1 条记忆都已清除。</translation>
    </message>
    <message numerus="yes">
        <source>Deleted “{name}” forever: the archived workspace and its %n records are gone.</source>
        <translation>
            <numerusform>已永久删除“{name}”：这个已归档工作区及其 %n 条记忆都已清除。</numerusform>
        </translation>
    </message>
    <message>
        <source>Could not restore “{name}”: an active workspace for {folder} exists again (an agent may have started writing to it). Nothing was changed. Archive or clear the active one first, then restore this one.</source>
        <translation>无法恢复“{name}”：{folder} 又有了一个活动工作区（可能有智能体开始写入）。没有做任何更改。请先归档或清空那个活动工作区，再恢复这个。</translation>
    </message>
    <message>
        <source>“{name}” is no longer in the Recycle Bin (it was restored or purged elsewhere). The list has been refreshed.</source>
        <translation>“{name}”已不在回收站中（已在别处恢复或永久删除）。列表已刷新。</translation>
    </message>
    <message>
        <source>Nothing was deleted. “{name}” is still in the Recycle Bin.</source>
        <translation>没有删除任何内容。“{name}”仍在回收站中。</translation>
    </message>
    <message>
        <source>Nothing was deleted: “{typed}” does not match. To delete, type “{name}” exactly.</source>
        <translation>没有删除任何内容：“{typed}”不匹配。要删除，请准确输入“{name}”。</translation>
    </message>
    <message>
        <source>Nothing was deleted. {why}</source>
        <translation>没有删除任何内容。{why}</translation>
    </message>
</context>
<context>
    <name>RecycleText</name>
    <message>
        <source>(unknown)</source>
        <translation>（未知）</translation>
    </message>
    <message>
        <source>(this folder no longer exists)</source>
        <translation>（这个文件夹已不存在）</translation>
    </message>
    <message>
        <source>Folder: {folder}</source>
        <translation>文件夹：{folder}</translation>
    </message>
    <message>
        <source>Archived: {when}</source>
        <translation>归档时间：{when}</translation>
    </message>
    <message>
        <source>unknown</source>
        <translation>未知</translation>
    </message>
    <message>
        <source>Key: {key}</source>
        <translation>键：{key}</translation>
    </message>
    <message>
        <source>Size: {size}</source>
        <translation>大小：{size}</translation>
    </message>
    <message>
        <source>No records.</source>
        <translation>没有记忆。</translation>
    </message>
    <message>
        <source>1 record:</source>
        <translation>1 条记忆：</translation>
    </message>
    <message numerus="yes">
        <source>%n records:</source>
        <translation>
            <numerusform>%n 条记忆：</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Invalid files (kept as they are): %n</source>
        <translation>
            <numerusform>无效文件（保持原样）：%n 个</numerusform>
        </translation>
    </message>
    <message>
        <source>invalid</source>
        <translation>无效</translation>
    </message>
</context>
<context>
    <name>RelationActions</name>
    <message>
        <source>This session cannot be previewed: {why}</source>
        <translation>无法预览这个会话：{why}</translation>
    </message>
    <message>
        <source>Replaced {target} with the corrected text.</source>
        <translation>已用更正后的内容替换 {target}。</translation>
    </message>
    <message>
        <source>Merged into {target}: review the merged text.</source>
        <translation>已合并到 {target}：请检查合并后的内容。</translation>
    </message>
    <message>
        <source>Rename record</source>
        <translation>重命名记录</translation>
    </message>
    <message>
        <source>New name for {name} (lower-case words joined by hyphens):</source>
        <translation>{name} 的新名称（用连字符连接的小写单词）：</translation>
    </message>
    <message>
        <source>Not renamed: {why}</source>
        <translation>未重命名：{why}</translation>
    </message>
</context>
<context>
    <name>ReviewChangesModel</name>
    <message>
        <source>write</source>
        <translation>写入</translation>
    </message>
    <message>
        <source>delete</source>
        <translation>删除</translation>
    </message>
    <message>
        <source>replace Global</source>
        <translation>替换全局记忆</translation>
    </message>
    <message>
        <source>no change</source>
        <translation>无更改</translation>
    </message>
    <message>
        <source>Accept</source>
        <translation>接受</translation>
    </message>
    <message>
        <source>Change</source>
        <translation>更改</translation>
    </message>
    <message>
        <source>Target</source>
        <translation>目标</translation>
    </message>
    <message>
        <source>Reason</source>
        <translation>原因</translation>
    </message>
    <message>
        <source>Warnings</source>
        <translation>警告</translation>
    </message>
    <message>
        <source>refused</source>
        <translation>已拒绝</translation>
    </message>
    <message>
        <source>edited</source>
        <translation>已编辑</translation>
    </message>
    <message>
        <source> (edited)</source>
        <translation>（已编辑）</translation>
    </message>
    <message>
        <source>This change cannot be accepted:</source>
        <translation>这项更改无法接受：</translation>
    </message>
    <message>
        <source>Evidence: seq {seqs}</source>
        <translation>依据：序号 {seqs}</translation>
    </message>
</context>
<context>
    <name>ReviewPanel</name>
    <message>
        <source>Run a consolidator on a session to review what it proposes.</source>
        <translation>对一个会话运行整理器，审阅它提议的内容。</translation>
    </message>
    <message>
        <source>Diff</source>
        <translation>差异</translation>
    </message>
    <message>
        <source>Edit record</source>
        <translation>编辑记忆</translation>
    </message>
    <message>
        <source>What the model saw</source>
        <translation>模型看到的内容</translation>
    </message>
    <message>
        <source>Accept all valid</source>
        <translation>接受全部有效更改</translation>
    </message>
    <message>
        <source>Reject all</source>
        <translation>全部拒绝</translation>
    </message>
    <message>
        <source>Commit selected</source>
        <translation>提交所选</translation>
    </message>
    <message>
        <source>Merge into existing</source>
        <translation>合并到现有记忆</translation>
    </message>
    <message>
        <source>Turn this new record into an update of the similar record it restates</source>
        <translation>把这条新记忆改为对它所重复的相似记忆的更新</translation>
    </message>
    <message>
        <source>Delete review</source>
        <translation>删除审阅</translation>
    </message>
    <message>
        <source>Delete this pending review; nothing is written to memory</source>
        <translation>删除这个待审阅项；不会写入记忆</translation>
    </message>
    <message>
        <source>Records this review wrote</source>
        <translation>这次审阅写入的记忆</translation>
    </message>
    <message>
        <source>Open record</source>
        <translation>打开记忆</translation>
    </message>
    <message>
        <source>Show this record in the Workspace tab</source>
        <translation>在“工作区”标签页中显示这条记忆</translation>
    </message>
    <message>
        <source>Review</source>
        <translation>审阅</translation>
    </message>
    <message>
        <source>Receipts</source>
        <translation>回执</translation>
    </message>
    <message>
        <source>Reject proposal</source>
        <translation>拒绝提议</translation>
    </message>
    <message>
        <source>1 change to review</source>
        <translation>1 项更改待审阅</translation>
    </message>
    <message numerus="yes">
        <source>%n changes to review</source>
        <translation>
            <numerusform>%n 项更改待审阅</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>, %n refused by the checks</source>
        <translation>
            <numerusform>，%n 项未通过检查</numerusform>
        </translation>
    </message>
    <message>
        <source>workspace {cwd}</source>
        <translation>工作区 {cwd}</translation>
    </message>
    <message>
        <source>seqs {first}–{last}</source>
        <translation>序号 {first}–{last}</translation>
    </message>
    <message>
        <source>review {id}</source>
        <translation>审阅 {id}</translation>
    </message>
    <message>
        <source>The agent&apos;s reason: {reason}</source>
        <translation>智能体的理由：{reason}</translation>
    </message>
    <message>
        <source>Restored from a saved review; the consolidator was not run again.</source>
        <translation>从已保存的审阅中恢复；没有重新运行整理器。</translation>
    </message>
    <message>
        <source> (edited)</source>
        <translation>（已编辑）</translation>
    </message>
    <message>
        <source> — similar to [[{name}]], {percent} %</source>
        <translation> — 与 [[{name}]] 相似，{percent}%</translation>
    </message>
    <message>
        <source> — refused: {why}</source>
        <translation> — 已拒绝：{why}</translation>
    </message>
    <message>
        <source>Existing {target}</source>
        <translation>现有的 {target}</translation>
    </message>
    <message>
        <source>Reject all and close</source>
        <translation>全部拒绝并关闭</translation>
    </message>
    <message>
        <source>{n} of {total} accepted</source>
        <translation>已接受 {n} / {total}</translation>
    </message>
    <message>
        <source>Transcript</source>
        <translation>会话记录</translation>
    </message>
    <message>
        <source>Replace</source>
        <translation>替换</translation>
    </message>
    <message>
        <source>Put the corrected text under the existing record&apos;s name</source>
        <translation>把更正后的内容放到已有记录的名称下</translation>
    </message>
    <message>
        <source>Keep both</source>
        <translation>两者都保留</translation>
    </message>
    <message>
        <source>Add the new record and leave the existing one as it is</source>
        <translation>添加新记录，已有记录保持不变</translation>
    </message>
    <message>
        <source>Merge</source>
        <translation>合并</translation>
    </message>
    <message>
        <source>Append the new text to the existing record</source>
        <translation>把新内容追加到已有记录</translation>
    </message>
    <message>
        <source>Rename…</source>
        <translation>重命名…</translation>
    </message>
    <message>
        <source>Give the proposed record another name (checked like any name)</source>
        <translation>给提议的记录换个名称（与其他名称一样会被检查）</translation>
    </message>
    <message>
        <source>The user&apos;s words:</source>
        <translation>用户的原话：</translation>
    </message>
    <message>
        <source>No words of the user at the cited seqs.</source>
        <translation>引用的 seq 中没有用户的原话。</translation>
    </message>
    <message>
        <source>Contradicts [[{name}]]: replace it, keep both, or merge?</source>
        <translation>与 [[{name}]] 矛盾：替换它、两者都保留，还是合并？</translation>
    </message>
    <message>
        <source>Supersedes [[{name}]]: replace it, keep both, or merge?</source>
        <translation>取代 [[{name}]]：替换它、两者都保留，还是合并？</translation>
    </message>
</context>
<context>
    <name>ReviewRecordEditor</name>
    <message>
        <source>looks like it contains a credential: {found}</source>
        <translation>看起来含有凭据：{found}</translation>
    </message>
    <message>
        <source>The name is the file name; it cannot be changed here.</source>
        <translation>名称就是文件名，这里不能修改。</translation>
    </message>
    <message>
        <source>Use edited record</source>
        <translation>使用编辑后的记忆</translation>
    </message>
    <message>
        <source>Revert to proposal</source>
        <translation>还原为提议</translation>
    </message>
    <message>
        <source>Show hidden values</source>
        <translation>显示隐藏的值</translation>
    </message>
    <message>
        <source>The record holds what looks like a credential; it is hidden.</source>
        <translation>这条记忆含有疑似凭据的内容，已隐藏。</translation>
    </message>
    <message>
        <source>Only put changes can be edited. Select one in the list above.</source>
        <translation>只有写入类更改可以编辑。请在上方列表中选择一项。</translation>
    </message>
    <message>
        <source>Name</source>
        <translation>名称</translation>
    </message>
    <message>
        <source>Description</source>
        <translation>描述</translation>
    </message>
    <message>
        <source>Type</source>
        <translation>类型</translation>
    </message>
</context>
<context>
    <name>SessionTableModel</name>
    <message>
        <source>Title</source>
        <translation>标题</translation>
    </message>
    <message>
        <source>Date</source>
        <translation>日期</translation>
    </message>
    <message>
        <source>Turns</source>
        <translation>轮数</translation>
    </message>
    <message>
        <source>Size</source>
        <translation>大小</translation>
    </message>
    <message>
        <source>Version</source>
        <translation>版本</translation>
    </message>
    <message>
        <source>State</source>
        <translation>状态</translation>
    </message>
    <message>
        <source>Last review</source>
        <translation>上次审阅</translation>
    </message>
    <message>
        <source>(untitled)</source>
        <translation>（无标题）</translation>
    </message>
    <message>
        <source>stable</source>
        <translation>稳定</translation>
    </message>
    <message>
        <source>live</source>
        <translation>进行中</translation>
    </message>
    <message>
        <source>{title}
session {id}
{cwd}
log format v{version}</source>
        <translation>{title}
会话 {id}
{cwd}
日志格式 v{version}</translation>
    </message>
    <message>
        <source>no working directory</source>
        <translation>没有工作目录</translation>
    </message>
</context>
<context>
    <name>SessionsPanel</name>
    <message>
        <source>Sessions without a working directory belong to no workspace, so they cannot be consolidated. They are listed so you can see them.</source>
        <translation>没有工作目录的会话不属于任何工作区，因此无法整理。列出它们只是为了让你看到。</translation>
    </message>
    <message>
        <source>Filter sessions by title…</source>
        <translation>按标题筛选会话…</translation>
    </message>
    <message>
        <source>Offline extractor</source>
        <translation>离线提取器</translation>
    </message>
    <message>
        <source>Model</source>
        <translation>模型</translation>
    </message>
    <message>
        <source>Run</source>
        <translation>运行</translation>
    </message>
    <message>
        <source>Run all unreviewed</source>
        <translation>运行全部未审阅</translation>
    </message>
    <message>
        <source>Consolidate every stable session of this workspace that has no finished review yet; each gets its own review, waiting for you</source>
        <translation>整理这个工作区中所有尚未完成审阅的稳定会话；每个会话各自生成一个审阅，等待你处理</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>Consolidator</source>
        <translation>整理器</translation>
    </message>
    <message>
        <source>Workspace</source>
        <translation>工作区</translation>
    </message>
    <message>
        <source>No DSH sessions found in {folder}. Change the sessions folder in Settings.</source>
        <translation>在 {folder} 中没有找到 DSH 会话。可以在“设置”中更改会话文件夹。</translation>
    </message>
    <message>
        <source>No sessions in this workspace.</source>
        <translation>这个工作区没有会话。</translation>
    </message>
    <message>
        <source>Run 1 session</source>
        <translation>运行 1 个会话</translation>
    </message>
    <message numerus="yes">
        <source>Run %n sessions</source>
        <translation>
            <numerusform>运行 %n 个会话</numerusform>
        </translation>
    </message>
    <message>
        <source>Consolidate the selected stable sessions one after another, each with its own review</source>
        <translation>依次整理所选的稳定会话，每个会话各自生成一个审阅</translation>
    </message>
    <message>
        <source>Select a session first</source>
        <translation>请先选择一个会话</translation>
    </message>
    <message>
        <source>The session is live: {why}</source>
        <translation>会话仍在进行：{why}</translation>
    </message>
    <message>
        <source>Ask the consolidator what to remember from this session</source>
        <translation>让整理器找出这个会话中值得记住的内容</translation>
    </message>
</context>
<context>
    <name>SettingsFields</name>
    <message>
        <source>System (follow the computer&apos;s language)</source>
        <translation>跟随系统（使用电脑的语言）</translation>
    </message>
    <message>
        <source>Offline extractor (built in, no network)</source>
        <translation>离线提取器（内置，不联网）</translation>
    </message>
    <message>
        <source>Language model (OpenAI-compatible chat API)</source>
        <translation>语言模型（兼容 OpenAI 的聊天 API）</translation>
    </message>
    <message>
        <source>model name, e.g. qwen3-coder</source>
        <translation>模型名称，例如 qwen3-coder</translation>
    </message>
    <message>
        <source>variable NAME, e.g. MY_LLM_API_KEY (leave empty for no key)</source>
        <translation>变量名称，例如 MY_LLM_API_KEY（不需要密钥则留空）</translation>
    </message>
    <message>
        <source>Test connection</source>
        <translation>测试连接</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>Write debug logs of consolidation attempts</source>
        <translation>为整理尝试写入调试日志</translation>
    </message>
    <message>
        <source> s</source>
        <translation> 秒</translation>
    </message>
    <message>
        <source>How long one model request may take before it is abandoned</source>
        <translation>单次模型请求最长可以等待多久，超时即放弃</translation>
    </message>
    <message>
        <source>A session counts as finished (and can be consolidated) once its log has not changed this long</source>
        <translation>会话日志在这么长时间内没有变化，即视为已结束（可以整理）</translation>
    </message>
    <message>
        <source> days</source>
        <translation> 天</translation>
    </message>
    <message>
        <source>Pending consolidation reviews older than this are discarded</source>
        <translation>超过这个时间的待审阅整理结果会被丢弃</translation>
    </message>
    <message>
        <source>Beyond this many pending reviews, the oldest ones are discarded</source>
        <translation>待审阅超过这个数量时，最旧的会被丢弃</translation>
    </message>
    <message>
        <source> KB</source>
        <translation> KB</translation>
    </message>
    <message>
        <source>The most the model&apos;s first request may hold (instructions, evidence, Global, records)</source>
        <translation>模型首个请求最多可包含的内容量（指令、依据、全局记忆、记忆）</translation>
    </message>
    <message>
        <source>How many rounds of read-only tool calls the model may make (0: a single request, no tools)</source>
        <translation>模型最多可以进行几轮只读工具调用（0：只发一次请求，不用工具）</translation>
    </message>
    <message>
        <source> tokens</source>
        <translation> 个 token</translation>
    </message>
    <message>
        <source>The load meter warns when GLOBAL.md + a workspace&apos;s MEMORY.md are estimated above this</source>
        <translation>当 GLOBAL.md 加上某个工作区的 MEMORY.md 估算超过这个值时，加载量表会发出警告</translation>
    </message>
    <message>
        <source>Browse…</source>
        <translation>浏览…</translation>
    </message>
    <message>
        <source>Use default</source>
        <translation>使用默认值</translation>
    </message>
    <message>
        <source>Interface</source>
        <translation>界面</translation>
    </message>
    <message>
        <source>Language:</source>
        <translation>语言：</translation>
    </message>
    <message>
        <source>Consolidation model</source>
        <translation>整理用模型</translation>
    </message>
    <message>
        <source>Consolidator:</source>
        <translation>整理器：</translation>
    </message>
    <message>
        <source>Model:</source>
        <translation>模型：</translation>
    </message>
    <message>
        <source>Request timeout:</source>
        <translation>请求超时：</translation>
    </message>
    <message>
        <source>A session counts as finished after</source>
        <translation>会话在</translation>
    </message>
    <message>
        <source>without changes</source>
        <translation>没有变化后视为已结束</translation>
    </message>
    <message>
        <source>Custom OpenAI-compatible endpoint</source>
        <translation>自定义 OpenAI 兼容端点</translation>
    </message>
    <message>
        <source>Base URL:</source>
        <translation>基础 URL：</translation>
    </message>
    <message>
        <source>API key variable:</source>
        <translation>API 密钥变量：</translation>
    </message>
    <message>
        <source>The NAME of the environment variable that holds the key, never the key itself.
The key is read from the environment for each request and is never saved.</source>
        <translation>填写保存密钥的环境变量的名称，而不是密钥本身。
每次请求时从环境中读取密钥，密钥永远不会被保存。</translation>
    </message>
    <message>
        <source>Debugging</source>
        <translation>调试</translation>
    </message>
    <message>
        <source>Each model attempt&apos;s sizes, timings and status codes go to debug/&lt;review-id&gt;/ in the memory root.
Conversation text, memory bodies and keys are never logged.</source>
        <translation>每次模型调用的大小、耗时和状态码写入记忆根目录下的 debug/&lt;review-id&gt;/。
对话内容、记忆正文和密钥永远不会记录。</translation>
    </message>
    <message>
        <source>Limits</source>
        <translation>限制</translation>
    </message>
    <message>
        <source>Keep pending reviews for:</source>
        <translation>待审阅保留：</translation>
    </message>
    <message>
        <source>then they are discarded</source>
        <translation>之后丢弃</translation>
    </message>
    <message>
        <source>Keep at most:</source>
        <translation>最多保留：</translation>
    </message>
    <message>
        <source>pending reviews (the newest)</source>
        <translation>个待审阅（保留最新的）</translation>
    </message>
    <message>
        <source>Model input budget:</source>
        <translation>模型输入预算：</translation>
    </message>
    <message>
        <source>per first request (at least 8 KB)</source>
        <translation>每个首次请求（至少 8 KB）</translation>
    </message>
    <message>
        <source>Tool rounds:</source>
        <translation>工具轮数：</translation>
    </message>
    <message>
        <source>read-only tool rounds per consolidation</source>
        <translation>每次整理的只读工具轮数</translation>
    </message>
    <message>
        <source>Load warning above:</source>
        <translation>加载量警告阈值：</translation>
    </message>
    <message>
        <source>estimated tokens an agent loads at start (GLOBAL.md + MEMORY.md)</source>
        <translation>智能体启动时加载的估算 token 数（GLOBAL.md + MEMORY.md）</translation>
    </message>
    <message>
        <source>Folders</source>
        <translation>文件夹</translation>
    </message>
    <message>
        <source>Memory root:</source>
        <translation>记忆根目录：</translation>
    </message>
    <message>
        <source>Chosen when the app starts. To use another root, start the app with “dsh-memory --root PATH”,
or set DSH_MEMORY_ROOT (or DSH_HOME: its memory folder is the default).</source>
        <translation>在应用启动时确定。要使用其他根目录，请用“dsh-memory --root PATH”启动，
或设置 DSH_MEMORY_ROOT（或 DSH_HOME：默认使用其中的 memory/ 文件夹）。</translation>
    </message>
    <message>
        <source>Sessions root:</source>
        <translation>会话根目录：</translation>
    </message>
    <message>
        <source>Models come from {where} (DSH&apos;s own configuration; only key variable names are shown).</source>
        <translation>模型列表来自 {where}（DSH 自己的配置；只显示密钥变量名）。</translation>
    </message>
    <message>
        <source>DSH&apos;s model list {where} does not exist, so the built-in defaults are in use.</source>
        <translation>DSH 的模型列表 {where} 不存在，因此正在使用内置默认值。</translation>
    </message>
    <message>
        <source>The saved model {name} is not in that list any more; pick another one.</source>
        <translation>已保存的模型 {name} 不在这个列表中了，请另选一个。</translation>
    </message>
</context>
<context>
    <name>SettingsTab</name>
    <message>
        <source>Save</source>
        <translation>保存</translation>
    </message>
    <message>
        <source>Revert</source>
        <translation>还原</translation>
    </message>
    <message>
        <source>Settings</source>
        <translation>设置</translation>
    </message>
    <message>
        <source>Not saved: {why}</source>
        <translation>未保存：{why}</translation>
    </message>
    <message>
        <source>Saved. The new language is used the next time the app starts.</source>
        <translation>已保存。下次启动应用时使用新的语言。</translation>
    </message>
    <message>
        <source>Could not read settings.yml: {why}</source>
        <translation>无法读取 settings.yml：{why}</translation>
    </message>
    <message>
        <source>settings.yml changed on disk while you were editing. Your edits are kept; Reload shows the file&apos;s settings instead.</source>
        <translation>你编辑期间磁盘上的 settings.yml 发生了变化。你的修改已保留；点击“重新加载”可改为显示文件中的设置。</translation>
    </message>
    <message>
        <source>Reload</source>
        <translation>重新加载</translation>
    </message>
    <message>
        <source>Saving will ask before replacing the file.</source>
        <translation>保存时会先询问是否替换该文件。</translation>
    </message>
    <message>
        <source>Calls the endpoint below.</source>
        <translation>调用下方的端点。</translation>
    </message>
    <message>
        <source>API key from ${name} (is set)</source>
        <translation>API 密钥取自 ${name}（已设置）</translation>
    </message>
    <message>
        <source>API key from ${name} (is NOT set in this environment)</source>
        <translation>API 密钥取自 ${name}（当前环境中未设置）</translation>
    </message>
    <message>
        <source>no API key</source>
        <translation>无 API 密钥</translation>
    </message>
    <message>
        <source>{model} at {url} · {key}</source>
        <translation>{model}，位于 {url} · {key}</translation>
    </message>
    <message>
        <source>Where DSH keeps its session logs; this app only reads them.</source>
        <translation>DSH 存放会话日志的位置；本应用只读取它们。</translation>
    </message>
    <message>
        <source>Default: {path}.</source>
        <translation>默认：{path}。</translation>
    </message>
    <message>
        <source>This folder does not exist (yet): no sessions will be listed.</source>
        <translation>这个文件夹（还）不存在：不会列出任何会话。</translation>
    </message>
    <message>
        <source>Loading settings…</source>
        <translation>正在加载设置…</translation>
    </message>
    <message>
        <source>Unsaved changes.</source>
        <translation>有未保存的更改。</translation>
    </message>
    <message>
        <source>Defaults in use: {path} does not exist yet.</source>
        <translation>正在使用默认设置：{path} 还不存在。</translation>
    </message>
    <message>
        <source>Saved in {path}.</source>
        <translation>已保存在 {path}。</translation>
    </message>
    <message>
        <source>Choose the DSH sessions folder</source>
        <translation>选择 DSH 会话文件夹</translation>
    </message>
    <message>
        <source>Not saved.</source>
        <translation>未保存。</translation>
    </message>
    <message>
        <source>Settings saved to {path}.</source>
        <translation>设置已保存到 {path}。</translation>
    </message>
    <message>
        <source>Replace settings.yml</source>
        <translation>替换 settings.yml</translation>
    </message>
    <message>
        <source>Replace the file with the settings shown here?</source>
        <translation>用这里显示的设置替换该文件？</translation>
    </message>
    <message>
        <source>Replace</source>
        <translation>替换</translation>
    </message>
    <message>
        <source>Not saved: settings.yml was left as it is.</source>
        <translation>未保存：settings.yml 保持原样。</translation>
    </message>
    <message>
        <source>Overwrite settings</source>
        <translation>覆盖设置</translation>
    </message>
    <message>
        <source>Replace the settings on disk (changed by someone else) with the ones shown here?</source>
        <translation>用这里显示的设置替换磁盘上（已被他人修改）的设置？</translation>
    </message>
    <message>
        <source>Overwrite</source>
        <translation>覆盖</translation>
    </message>
    <message>
        <source>settings.yml was changed by someone else since you opened it. Nothing was saved. Reload to see the file&apos;s settings (your edits here are discarded), or keep yours.</source>
        <translation>你打开之后 settings.yml 被他人修改了。没有保存任何内容。可以重新加载查看文件中的设置（这里的修改会被丢弃），或保留你的设置。</translation>
    </message>
    <message>
        <source>Keep mine…</source>
        <translation>保留我的…</translation>
    </message>
    <message>
        <source>Pick a model first.</source>
        <translation>请先选择一个模型。</translation>
    </message>
    <message>
        <source>Cannot test</source>
        <translation>无法测试</translation>
    </message>
    <message>
        <source>Connecting to {url}…</source>
        <translation>正在连接 {url}…</translation>
    </message>
    <message>
        <source>Cancelled</source>
        <translation>已取消</translation>
    </message>
    <message>
        <source>The connection test was cancelled.</source>
        <translation>连接测试已取消。</translation>
    </message>
    <message>
        <source>Could not connect</source>
        <translation>无法连接</translation>
    </message>
    <message>
        <source>Cancelling…</source>
        <translation>正在取消…</translation>
    </message>
    <message>
        <source>Settings saved.</source>
        <translation>设置已保存。</translation>
    </message>
    <message>
        <source>The new language shows after a restart.</source>
        <translation>重新启动后显示新的语言。</translation>
    </message>
    <message>
        <source>Restart now</source>
        <translation>立即重新启动</translation>
    </message>
</context>
<context>
    <name>SideBySideView</name>
    <message>
        <source>(does not exist yet)</source>
        <translation>（尚不存在）</translation>
    </message>
    <message>
        <source>(deleted)</source>
        <translation>（已删除）</translation>
    </message>
</context>
<context>
    <name>SourcesModel</name>
    <message>
        <source>1 error</source>
        <translation>1 个错误</translation>
    </message>
    <message numerus="yes">
        <source>%n errors</source>
        <translation>
            <numerusform>%n 个错误</numerusform>
        </translation>
    </message>
    <message>
        <source>1 note</source>
        <translation>1 条提示</translation>
    </message>
    <message numerus="yes">
        <source>%n notes</source>
        <translation>
            <numerusform>%n 条提示</numerusform>
        </translation>
    </message>
    <message>
        <source>, </source>
        <translation>，</translation>
    </message>
    <message>
        <source>none</source>
        <translation>无</translation>
    </message>
    <message>
        <source>Store</source>
        <translation>存储</translation>
    </message>
    <message>
        <source>Location</source>
        <translation>位置</translation>
    </message>
    <message>
        <source>Scopes</source>
        <translation>作用域</translation>
    </message>
    <message>
        <source>Entries</source>
        <translation>条目</translation>
    </message>
    <message>
        <source>Problems</source>
        <translation>问题</translation>
    </message>
    <message>
        <source>{active} active, {archived} archived</source>
        <translation>{active} 个活动，{archived} 个已归档</translation>
    </message>
</context>
<context>
    <name>SourcesPanel</name>
    <message>
        <source>left as it is; fix or remove it in that store (this app never rewrites another store&apos;s files)</source>
        <translation>保持原样；请在那个存储中修复或删除它（本应用从不改写其他存储的文件）</translation>
    </message>
    <message>
        <source>skipped on purpose (not a format this app reads)</source>
        <translation>有意跳过（本应用不读取这种格式）</translation>
    </message>
    <message>
        <source>{store}: everything in {path} could be read.</source>
        <translation>{store}：{path} 中的内容全部可以读取。</translation>
    </message>
    <message>
        <source>{store} — 1 problem:</source>
        <translation>{store} — 1 个问题：</translation>
    </message>
    <message numerus="yes">
        <source>{store} — %n problems:</source>
        <translation>
            <numerusform>{store} — %n 个问题：</numerusform>
        </translation>
    </message>
    <message>
        <source>error</source>
        <translation>错误</translation>
    </message>
    <message>
        <source>note</source>
        <translation>提示</translation>
    </message>
    <message>
        <source>Other memory stores on this machine (read-only)</source>
        <translation>这台电脑上的其他记忆存储（只读）</translation>
    </message>
    <message>
        <source>Not looked yet.</source>
        <translation>尚未查找。</translation>
    </message>
    <message>
        <source>Look again</source>
        <translation>重新查找</translation>
    </message>
    <message>
        <source>Select a store to see what could not be read.</source>
        <translation>选择一个存储，查看哪些内容无法读取。</translation>
    </message>
    <message>
        <source>Looking for memory stores…</source>
        <translation>正在查找记忆存储…</translation>
    </message>
    <message>
        <source>1 store found</source>
        <translation>找到 1 个存储</translation>
    </message>
    <message numerus="yes">
        <source>%n stores found</source>
        <translation>
            <numerusform>找到 %n 个存储</numerusform>
        </translation>
    </message>
    <message>
        <source>; {bad} with files that could not be read.</source>
        <translation>；其中 {bad} 个有无法读取的文件。</translation>
    </message>
    <message>
        <source>.</source>
        <translation>。</translation>
    </message>
    <message>
        <source>Could not look for other stores: {why}</source>
        <translation>无法查找其他存储：{why}</translation>
    </message>
</context>
<context>
    <name>SyncPanel</name>
    <message>
        <source>Sync</source>
        <translation>同步</translation>
    </message>
    <message>
        <source>Keep this memory in step with your other machines through any git remote: a bare repository on a server, a private hosted repository or a folder on a USB disk. Only GLOBAL.md, workspaces, the Recycle Bin and receipts travel; settings and this app&apos;s internals stay here.</source>
        <translation>通过任意 git 远程仓库让这份记忆与你的其他电脑保持一致：服务器上的裸仓库、私有托管仓库或 U 盘上的文件夹都可以。只同步 GLOBAL.md、工作区、回收站和回执；设置和本应用的内部文件留在本机。</translation>
    </message>
    <message>
        <source>git@github.com:me/dsh-memory.git or /media/usb/memory.git</source>
        <translation>git@github.com:me/dsh-memory.git 或 /media/usb/memory.git</translation>
    </message>
    <message>
        <source>Sync now</source>
        <translation>立即同步</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>Remote:</source>
        <translation>远程仓库：</translation>
    </message>
    <message>
        <source>Not synced yet.</source>
        <translation>尚未同步。</translation>
    </message>
    <message>
        <source>Sync review: changed on both machines</source>
        <translation>同步审阅：两台电脑都修改过</translation>
    </message>
    <message>
        <source>Sync could not run: {why}</source>
        <translation>无法同步：{why}</translation>
    </message>
    <message>
        <source>Syncing…</source>
        <translation>正在同步…</translation>
    </message>
    <message>
        <source>Sync cancelled. Memory is whole; the next sync goes on from here.</source>
        <translation>同步已取消。记忆保持完整；下次同步会从这里继续。</translation>
    </message>
    <message>
        <source>Cancelling…</source>
        <translation>正在取消…</translation>
    </message>
</context>
<context>
    <name>SyncReviewPage</name>
    <message>
        <source>This machine</source>
        <translation>本机</translation>
    </message>
    <message>
        <source>Other machine</source>
        <translation>另一台电脑</translation>
    </message>
    <message>
        <source>Last synced</source>
        <translation>上次同步时</translation>
    </message>
    <message>
        <source>Keep this machine&apos;s</source>
        <translation>保留本机的</translation>
    </message>
    <message>
        <source>Take the other machine&apos;s</source>
        <translation>采用另一台电脑的</translation>
    </message>
    <message>
        <source>No sync review is waiting: nothing changed on two machines at once.</source>
        <translation>没有等待中的同步审阅：没有记忆同时在两台电脑上被修改。</translation>
    </message>
    <message numerus="yes">
        <source>Choose a version for each record (%n left). Nothing is sent until every one is chosen.</source>
        <translation>
            <numerusform>请为每条记忆选择一个版本（还剩 %n 条）。全部选择之前不会发送任何内容。</numerusform>
        </translation>
    </message>
    <message>
        <source>Every record is chosen. Sync now to commit the merge and send it.</source>
        <translation>所有记忆都已选择。点击“立即同步”提交合并并发送。</translation>
    </message>
    <message>
        <source>Could not save the choice: {why}</source>
        <translation>无法保存选择：{why}</translation>
    </message>
</context>
<context>
    <name>SyncText</name>
    <message>
        <source>up to date</source>
        <translation>已是最新</translation>
    </message>
    <message>
        <source>sent</source>
        <translation>已发送</translation>
    </message>
    <message>
        <source>merged</source>
        <translation>已合并</translation>
    </message>
    <message>
        <source>waiting for your review</source>
        <translation>等待你审阅</translation>
    </message>
    <message>
        <source>stopped: a record holds a credential</source>
        <translation>已停止：有记忆含有凭据</translation>
    </message>
    <message>
        <source>the remote moved on; sync again</source>
        <translation>远程仓库已有新内容；请再同步一次</translation>
    </message>
    <message>
        <source>memory changed here while syncing; sync again</source>
        <translation>同步期间本机记忆有改动；请再同步一次</translation>
    </message>
    <message>
        <source>the remote could not be reached</source>
        <translation>无法连接远程仓库</translation>
    </message>
    <message>
        <source>git is not installed</source>
        <translation>未安装 git</translation>
    </message>
    <message>
        <source>failed</source>
        <translation>失败</translation>
    </message>
    <message>
        <source>Sync is not set up: enter a git remote and press Sync now.</source>
        <translation>尚未设置同步：请填写 git 远程仓库，然后点击“立即同步”。</translation>
    </message>
    <message>
        <source>Not synced yet.</source>
        <translation>尚未同步。</translation>
    </message>
    <message numerus="yes">
        <source>files received: %n</source>
        <translation>
            <numerusform>收到文件 %n 个</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>files sent: %n</source>
        <translation>
            <numerusform>发送文件 %n 个</numerusform>
        </translation>
    </message>
    <message>
        <source>Last sync {when}: {status}.</source>
        <translation>上次同步 {when}：{status}。</translation>
    </message>
    <message numerus="yes">
        <source>Records to review below: %n.</source>
        <translation>
            <numerusform>下方待审阅的记忆：%n 条。</numerusform>
        </translation>
    </message>
    <message>
        <source>Install git (Debian/Ubuntu: sudo apt install git; macOS: xcode-select --install; Windows: git-scm.com) and sync again. Your memory is unchanged.</source>
        <translation>请安装 git（Debian/Ubuntu：sudo apt install git；macOS：xcode-select --install；Windows：git-scm.com），然后再同步。你的记忆没有改变。</translation>
    </message>
    <message>
        <source>Never sent (credential-shaped value): {path}</source>
        <translation>从不发送（含疑似凭据的值）：{path}</translation>
    </message>
    <message>
        <source>Not synced: {path} — {why}</source>
        <translation>未同步：{path} — {why}</translation>
    </message>
    <message numerus="yes">
        <source>Synced workspaces with no folder on this machine: %n. Map each in the Recycle Bin (Moved? Pick the new folder…).</source>
        <translation>
            <numerusform>本机没有对应文件夹的同步工作区：%n 个。请在回收站中逐个指定（“移动了？选择新文件夹…”）。</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Deleted forever on another machine: %n workspace(s). This machine&apos;s copy is in the Recycle Bin and is no longer synced; purge it there to delete it here too.</source>
        <translation>
            <numerusform>已在另一台机器上永久删除：%n 个工作区。本机的副本在回收站中，不再同步；在那里永久删除它即可在本机也删除。</numerusform>
        </translation>
    </message>
    <message>
        <source>The synced history was rewritten without the workspaces deleted forever here; your other machines drop their copies at their next sync.</source>
        <translation>同步历史已被改写，不再含有在本机永久删除的工作区；你的其他机器会在下一次同步时删除各自的副本。</translation>
    </message>
    <message numerus="yes">
        <source>Sync: %n to review</source>
        <translation>
            <numerusform>同步：%n 项待审阅</numerusform>
        </translation>
    </message>
    <message>
        <source>Sync: not yet</source>
        <translation>同步：尚未同步</translation>
    </message>
    <message>
        <source>Sync: ✓</source>
        <translation>同步：✓</translation>
    </message>
    <message>
        <source>Sync: ⚠ {status}</source>
        <translation>同步：⚠ {status}</translation>
    </message>
    <message>
        <source>Sync with your other machines (Settings ▸ Sync)</source>
        <translation>与你的其他电脑同步（设置 ▸ 同步）</translation>
    </message>
</context>
<context>
    <name>TranscriptPane</name>
    <message>
        <source>Select a session to read its transcript.</source>
        <translation>选择一个会话以阅读其记录。</translation>
    </message>
    <message>
        <source>user</source>
        <translation>用户</translation>
    </message>
    <message>
        <source>assistant</source>
        <translation>助手</translation>
    </message>
    <message>
        <source>tool</source>
        <translation>工具</translation>
    </message>
    <message>
        <source>Transcript of “{title}” (read-only; tool output is never shown)</source>
        <translation>“{title}”的会话记录（只读；从不显示工具输出）</translation>
    </message>
    <message>
        <source>(answer to “{question}”)</source>
        <translation>（回答“{question}”）</translation>
    </message>
    <message>
        <source>ok</source>
        <translation>成功</translation>
    </message>
    <message>
        <source>error</source>
        <translation>出错</translation>
    </message>
    <message>
        <source>rejected</source>
        <translation>被拒绝</translation>
    </message>
    <message>
        <source>cancelled</source>
        <translation>已取消</translation>
    </message>
    <message>
        <source>no result recorded</source>
        <translation>未记录结果</translation>
    </message>
</context>
<context>
    <name>WorkspaceChoiceModel</name>
    <message>
        <source>Unassigned</source>
        <translation>未归属</translation>
    </message>
    <message>
        <source>{title} (1 session)</source>
        <translation>{title}（1 个会话）</translation>
    </message>
    <message numerus="yes">
        <source>{title} (%n sessions)</source>
        <translation>
            <numerusform>{title}（%n 个会话）</numerusform>
        </translation>
    </message>
    <message>
        <source>Sessions started without a working directory</source>
        <translation>没有工作目录的会话</translation>
    </message>
</context>
<context>
    <name>WorkspaceMemoryBinModel</name>
    <message>
        <source>Workspace memory</source>
        <translation>工作区记忆</translation>
    </message>
    <message>
        <source>Folder</source>
        <translation>文件夹</translation>
    </message>
    <message>
        <source>State</source>
        <translation>状态</translation>
    </message>
    <message>
        <source>Entries</source>
        <translation>条目</translation>
    </message>
    <message>
        <source>Size</source>
        <translation>大小</translation>
    </message>
    <message>
        <source>active, folder gone</source>
        <translation>活动，文件夹已不存在</translation>
    </message>
    <message>
        <source>archived {when}</source>
        <translation>归档于 {when}</translation>
    </message>
    <message>
        <source> (also active)</source>
        <translation>（同时存在活动副本）</translation>
    </message>
    <message>
        <source>Scope key: {key}</source>
        <translation>作用域键：{key}</translation>
    </message>
</context>
<context>
    <name>WorkspaceMemoryBinPanel</name>
    <message>
        <source>Folder: {folder}</source>
        <translation>文件夹：{folder}</translation>
    </message>
    <message>
        <source>Scope: {path}</source>
        <translation>作用域：{path}</translation>
    </message>
    <message numerus="yes">
        <source>%n entries</source>
        <translation>
            <numerusform>%n 个条目</numerusform>
        </translation>
    </message>
    <message>
        <source>Summary:</source>
        <translation>摘要：</translation>
    </message>
    <message>
        <source>Problems:</source>
        <translation>问题：</translation>
    </message>
    <message>
        <source>DSH workspace memory (another store)</source>
        <translation>DSH 工作区记忆（另一个存储）</translation>
    </message>
    <message>
        <source>Restore</source>
        <translation>恢复</translation>
    </message>
    <message>
        <source>Archive</source>
        <translation>归档</translation>
    </message>
    <message>
        <source>Move an active scope whose folder no longer exists into its archive</source>
        <translation>把文件夹已不存在的活动作用域移入归档</translation>
    </message>
    <message>
        <source>Delete forever…</source>
        <translation>永久删除…</translation>
    </message>
    <message>
        <source>1 archived scope</source>
        <translation>1 个已归档作用域</translation>
    </message>
    <message numerus="yes">
        <source>%n archived scopes</source>
        <translation>
            <numerusform>%n 个已归档作用域</numerusform>
        </translation>
    </message>
    <message>
        <source>1 active scope whose folder is gone (Archive offered)</source>
        <translation>1 个活动作用域的文件夹已不存在（可归档）</translation>
    </message>
    <message numerus="yes">
        <source>%n active scopes whose folder is gone (Archive offered)</source>
        <translation>
            <numerusform>%n 个活动作用域的文件夹已不存在（可归档）</numerusform>
        </translation>
    </message>
    <message>
        <source>; </source>
        <translation>；</translation>
    </message>
    <message>
        <source>.</source>
        <translation>。</translation>
    </message>
    <message numerus="yes">
        <source>%n interrupted purge(s) left behind: the next Delete forever finishes them.</source>
        <translation>
            <numerusform>有 %n 次永久删除被中断，下次永久删除时会一并完成。</numerusform>
        </translation>
    </message>
    <message>
        <source>Could not read workspace memory&apos;s archive: {why}</source>
        <translation>无法读取工作区记忆的归档：{why}</translation>
    </message>
    <message>
        <source>Archived workspace memory of “{name}”</source>
        <translation>“{name}”的已归档工作区记忆</translation>
    </message>
    <message>
        <source>Active workspace memory of “{name}”</source>
        <translation>“{name}”的活动工作区记忆</translation>
    </message>
    <message numerus="yes">
        <source>This folder no longer exists. %n entries.</source>
        <translation>
            <numerusform>这个文件夹已不存在。共 %n 个条目。</numerusform>
        </translation>
    </message>
    <message>
        <source>Loading…</source>
        <translation>正在加载…</translation>
    </message>
    <message>
        <source>Could not read this scope: {why}</source>
        <translation>无法读取这个作用域：{why}</translation>
    </message>
    <message>
        <source>Could not restore the workspace memory of “{name}”: that store has an active scope for {folder} again. Nothing was moved. Archive or delete one of them first.</source>
        <translation>无法恢复“{name}”的工作区记忆：那个存储中又出现了 {folder} 的活动作用域。没有移动任何内容。请先归档或删除其中一个。</translation>
    </message>
    <message>
        <source>“{name}” is no longer in workspace memory&apos;s archive. The list has been refreshed.</source>
        <translation>“{name}”已不在工作区记忆的归档中。列表已刷新。</translation>
    </message>
    <message>
        <source>Could not restore “{name}”: {why}</source>
        <translation>无法恢复“{name}”：{why}</translation>
    </message>
    <message numerus="yes">
        <source>Restored the workspace memory of “{name}” (%n entries) into DSH workspace memory. A running DSH sees it after a restart.</source>
        <translation>
            <numerusform>已将“{name}”的工作区记忆（%n 个条目）恢复到 DSH 工作区记忆中。正在运行的 DSH 重启后才能看到。</numerusform>
        </translation>
    </message>
    <message>
        <source>Archive workspace memory</source>
        <translation>归档工作区记忆</translation>
    </message>
    <message numerus="yes">
        <source>{folder} no longer exists.

Move its DSH workspace memory (%n entries) into that store&apos;s archive? It can be restored from here.</source>
        <translation>
            <numerusform>{folder} 已不存在。

要把它的 DSH 工作区记忆（%n 个条目）移入那个存储的归档吗？之后可以在这里恢复。</numerusform>
        </translation>
    </message>
    <message>
        <source>Archived the workspace memory of “{name}”; it is listed here and can be restored.</source>
        <translation>已归档“{name}”的工作区记忆；它列在这里，可以恢复。</translation>
    </message>
    <message>
        <source>Could not archive: {why}</source>
        <translation>无法归档：{why}</translation>
    </message>
    <message>
        <source>Delete archived workspace memory forever</source>
        <translation>永久删除已归档的工作区记忆</translation>
    </message>
    <message numerus="yes">
        <source>This permanently deletes DSH workspace memory&apos;s archived scope for {folder} and its %n entries. It cannot be undone.

Type the folder name “{name}” to confirm:</source>
        <translation>
            <numerusform>这会永久删除 DSH 工作区记忆中 {folder} 的已归档作用域及其 %n 个条目，无法撤销。

请输入文件夹名称“{name}”确认：</numerusform>
        </translation>
    </message>
    <message>
        <source>Nothing was deleted. “{name}” is still in workspace memory&apos;s archive.</source>
        <translation>没有删除任何内容。“{name}”仍在工作区记忆的归档中。</translation>
    </message>
    <message>
        <source>Nothing was deleted: “{typed}” is not the folder name. To delete it, type “{name}” exactly.</source>
        <translation>没有删除任何内容：“{typed}”不是文件夹名称。要删除，请准确输入“{name}”。</translation>
    </message>
    <message numerus="yes">
        <source>Purged the archived workspace memory of “{name}” (%n entries).</source>
        <translation>
            <numerusform>已永久删除“{name}”的已归档工作区记忆（%n 个条目）。</numerusform>
        </translation>
    </message>
    <message>
        <source>Purge failed: {why}</source>
        <translation>永久删除失败：{why}</translation>
    </message>
</context>
</TS>
