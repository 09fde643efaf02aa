<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
<context>
    <name>core</name>
    <message>
        <source>name {name} is not lower-case kebab-case (letters a-z, digits, single dashes, e.g. &apos;build-tips&apos;)</source>
        <translation>名称 {name} 不是小写连字符格式（只用字母 a-z、数字和单个短横线，例如 &apos;build-tips&apos;）</translation>
    </message>
    <message>
        <source>name {name} is reserved (it would clash with {index}); pick another name</source>
        <translation>名称 {name} 是保留名（会与 {index} 冲突），请换一个名称</translation>
    </message>
    <message>
        <source>name {name} does not match the file name {file} (expected {expected})</source>
        <translation>名称 {name} 与文件名 {file} 不一致（应为 {expected}）</translation>
    </message>
    <message>
        <source>name {name} does not match the file name {file}</source>
        <translation>名称 {name} 与文件名 {file} 不一致</translation>
    </message>
    <message>
        <source>description is empty; write a one-line hook saying when this record matters</source>
        <translation>描述为空：请用一行话写明这条记忆在什么时候有用</translation>
    </message>
    <message>
        <source>description spans several lines; it must be a single line</source>
        <translation>描述跨了多行，只能写一行</translation>
    </message>
    <message>
        <source>description contains control characters</source>
        <translation>描述里含有控制字符</translation>
    </message>
    <message>
        <source>type {type} is not one of feedback, project, reference</source>
        <translation>类型 {type} 不是 feedback、project、reference 之一</translation>
    </message>
    <message>
        <source>type {type} is not one of feedback, project, reference (facts about the user in general belong to GLOBAL.md)</source>
        <translation>类型 {type} 不是 feedback、project、reference 之一（关于用户本人的通用信息应写进 GLOBAL.md）</translation>
    </message>
    <message>
        <source>body contains NUL bytes</source>
        <translation>正文含有 NUL 字节</translation>
    </message>
    <message>
        <source>body contains carriage returns (CR); use LF line endings</source>
        <translation>正文含有回车符（CR），请使用 LF 换行</translation>
    </message>
    <message>
        <source>is {size} bytes; a record may be at most {limit} KiB</source>
        <translation>大小为 {size} 字节，一条记忆最多 {limit} KiB</translation>
    </message>
    <message>
        <source>has no &apos;name&apos; in its frontmatter</source>
        <translation>frontmatter 中缺少 &apos;name&apos;</translation>
    </message>
    <message>
        <source>has no &apos;description&apos; in its frontmatter</source>
        <translation>frontmatter 中缺少 &apos;description&apos;</translation>
    </message>
    <message>
        <source>has no &apos;metadata.type&apos; (feedback, project or reference)</source>
        <translation>缺少 &apos;metadata.type&apos;（feedback、project 或 reference）</translation>
    </message>
    <message>
        <source>has &apos;type&apos; at the top level; it belongs under &apos;metadata:&apos; (metadata.type)</source>
        <translation>&apos;type&apos; 写在了顶层；它应放在 &apos;metadata:&apos; 下（metadata.type）</translation>
    </message>
    <message>
        <source>its &apos;metadata&apos; is not a mapping; it needs &apos;type: feedback|project|reference&apos;</source>
        <translation>&apos;metadata&apos; 不是键值映射；它需要 &apos;type: feedback|project|reference&apos;</translation>
    </message>
    <message>
        <source>its type {type} is not one of feedback, project, reference</source>
        <translation>类型 {type} 不是 feedback、project、reference 之一</translation>
    </message>
    <message>
        <source>its name {name} is not text (YAML read it as {kind}); quote it</source>
        <translation>名称 {name} 不是文本（YAML 把它读成了 {kind}），请加引号</translation>
    </message>
    <message>
        <source>its description is not text (YAML read it as {kind}); quote it</source>
        <translation>描述不是文本（YAML 把它读成了 {kind}），请加引号</translation>
    </message>
    <message>
        <source>its frontmatter is not valid YAML: {problem}</source>
        <translation>frontmatter 不是有效的 YAML：{problem}</translation>
    </message>
    <message>
        <source>{what} contains what looks like a credential ({kinds}); refused: remove it by editing, or reject the change</source>
        <translation>{what} 含有疑似凭据的内容（{kinds}），已拒绝：请编辑删掉它，或拒绝这项更改</translation>
    </message>
    <message>
        <source>targets workspace {claimed}, but a consolidation may only change the source session&apos;s workspace ({cwd}); refused</source>
        <translation>目标是工作区 {claimed}，但一次整理只能修改来源会话所在的工作区（{cwd}），已拒绝</translation>
    </message>
    <message>
        <source>cites evidence seqs that are not in this session: {seqs}</source>
        <translation>引用的证据序号不在本会话中：{seqs}</translation>
    </message>
    <message>
        <source>record name {name} is a path; records live only in this workspace; refused</source>
        <translation>记忆名称 {name} 是一个路径；记忆只能放在本工作区，已拒绝</translation>
    </message>
    <message>
        <source>replaces the existing record {name}</source>
        <translation>将替换现有记忆 {name}</translation>
    </message>
    <message>
        <source>already in memory as [[{name}]]</source>
        <translation>记忆中已有：[[{name}]]</translation>
    </message>
    <message>
        <source>similar to [[{name}]], {score} %: merge it into that record instead of adding a near-copy</source>
        <translation>与 [[{name}]] 相似度 {score} %：建议合并到那条记忆，而不是再加一条近似副本</translation>
    </message>
    <message>
        <source>there is no record {name} in this workspace to delete</source>
        <translation>本工作区没有名为 {name} 的记忆可删除</translation>
    </message>
    <message>
        <source>deletes the record {name} (it stays recoverable from history)</source>
        <translation>将删除记忆 {name}（仍可从历史记录中恢复）</translation>
    </message>
    <message>
        <source>changes GLOBAL.md without citing evidence; refused</source>
        <translation>修改 GLOBAL.md 却没有引用证据，已拒绝</translation>
    </message>
    <message>
        <source>changes GLOBAL.md from evidence that is not the user&apos;s own words (seqs {seqs}); a workspace observation never becomes Global</source>
        <translation>修改 GLOBAL.md 的依据不是用户本人说的话（序号 {seqs}）；工作区里的观察不会升级为全局记忆</translation>
    </message>
    <message>
        <source>removes {removed} of {total} existing lines of GLOBAL.md</source>
        <translation>将删除 GLOBAL.md 现有 {total} 行中的 {removed} 行</translation>
    </message>
    <message>
        <source>changes GLOBAL.md, which every workspace sees: accept only if this is about you in general, not about this project</source>
        <translation>将修改 GLOBAL.md，所有工作区都会读到它：只有当内容是关于你本人、而不是这个项目时才接受</translation>
    </message>
    <message>
        <source>the new GLOBAL.md mentions this workspace ({mention}); project facts belong to the workspace</source>
        <translation>新的 GLOBAL.md 提到了本工作区（{mention}）；项目相关的事实应写在工作区里</translation>
    </message>
    <message>
        <source>{target} is already changed by {first}; refused</source>
        <translation>{target} 已被 {first} 修改，已拒绝</translation>
    </message>
    <message>
        <source>remember stated by the user (seq {seqs})</source>
        <translation>用户要求记住（序号 {seqs}）</translation>
    </message>
    <message>
        <source>decision stated by the user (seq {seqs})</source>
        <translation>用户说明的决定（序号 {seqs}）</translation>
    </message>
    <message>
        <source>correction stated by the user (seq {seqs})</source>
        <translation>用户给出的纠正（序号 {seqs}）</translation>
    </message>
    <message>
        <source>preference stated by the user (seq {seqs})</source>
        <translation>用户表达的偏好（序号 {seqs}）</translation>
    </message>
    <message>
        <source>the user said this about themselves in every project (seq {seqs}); confirm it belongs to GLOBAL.md</source>
        <translation>用户说的是关于自己、适用于所有项目的内容（序号 {seqs}）；请确认它应写进 GLOBAL.md</translation>
    </message>
    <message>
        <source>Everything found is already in memory.</source>
        <translation>找到的内容都已在记忆中。</translation>
    </message>
    <message>
        <source>No explicit remember requests, preferences, corrections or decisions were found.</source>
        <translation>没有找到明确的“记住”请求、偏好、纠正或决定。</translation>
    </message>
    <message>
        <source>session.lock could not be checked ({why})</source>
        <translation>无法检查 session.lock（{why}）</translation>
    </message>
    <message>
        <source>session.lock is held by pid {pid} on {host}</source>
        <translation>session.lock 被 {host} 上的进程 {pid} 占用</translation>
    </message>
    <message>
        <source>DSH (pid {pid}) holds session.lock (the session is open)</source>
        <translation>DSH（进程 {pid}）占用着 session.lock（会话仍在进行）</translation>
    </message>
    <message>
        <source>DSH holds session.lock (the session is open)</source>
        <translation>DSH 占用着 session.lock（会话仍在进行）</translation>
    </message>
    <message>
        <source>the session log is gone</source>
        <translation>会话日志已不存在</translation>
    </message>
    <message>
        <source>modified {age} ago; waiting for {quiet} without changes</source>
        <translation>{age} 前有改动；需等待 {quiet} 没有变化</translation>
    </message>
    <message>
        <source>the session changed since it was listed; refresh the list</source>
        <translation>列出后会话又有变化，请刷新列表</translation>
    </message>
    <message>
        <source>Proposed by {client} (MCP agent) on {when} UTC</source>
        <translation>{client}（MCP 智能体）于 {when} UTC 提议</translation>
    </message>
    <message>
        <source>Sync cancelled. Memory is whole (each workspace old or new); the next sync goes on from here.</source>
        <translation>同步已取消。记忆完好（每个工作区要么是旧状态，要么是新状态）；下一次同步会从这里继续。</translation>
    </message>
    <message>
        <source>The remote URL holds a credential (a password or token). Use an SSH URL or a git credential helper instead; settings never keep credentials.</source>
        <translation>远端 URL 中含有凭据（密码或令牌）。请改用 SSH URL 或 git 凭据助手；设置中从不保存凭据。</translation>
    </message>
    <message>
        <source>Another sync of this memory is running; try again when it ends.</source>
        <translation>这份记忆的另一次同步正在进行；请等它结束后再试。</translation>
    </message>
    <message>
        <source>Sync needs a memory root on disk.</source>
        <translation>同步需要磁盘上的记忆根目录。</translation>
    </message>
    <message>
        <source>This memory root is read-only; sync needs to write to it.</source>
        <translation>这个记忆根目录是只读的；同步需要写入它。</translation>
    </message>
    <message>
        <source>No sync remote yet: run `dsh-memory sync --remote URL` once (a bare repository on a server, a private hosted repository or a path on a USB disk).</source>
        <translation>还没有同步远端：先运行一次 `dsh-memory sync --remote URL`（服务器上的裸仓库、私有托管仓库或 U 盘上的路径）。</translation>
    </message>
    <message>
        <source>{path} changed while syncing; sync again</source>
        <translation>{path} 在同步过程中被修改；请再同步一次</translation>
    </message>
    <message>
        <source>{n} record(s) changed on both machines wait for your choice.</source>
        <translation>{n} 条记录在两台机器上都被修改，等待你的选择。</translation>
    </message>
    <message>
        <source>Not synced: these records hold credential-shaped values and are never pushed. Remove the values (or the records) and sync again: {paths}</source>
        <translation>未同步：这些记录含有形似凭据的值，永远不会被推送。请删除这些值（或这些记录）后再同步：{paths}</translation>
    </message>
    <message>
        <source>Synced. The synced history no longer holds the workspace(s) deleted forever here (the remote&apos;s branch was replaced); other machines rewrite their copy at their next sync.</source>
        <translation>已同步。同步历史中不再含有在本机永久删除的工作区（远端分支已被替换）；其他机器会在下一次同步时改写各自的副本。</translation>
    </message>
    <message>
        <source>Received {n} change(s).</source>
        <translation>收到 {n} 处更改。</translation>
    </message>
    <message>
        <source>Sent {n} change(s).</source>
        <translation>发送了 {n} 处更改。</translation>
    </message>
    <message>
        <source>Up to date.</source>
        <translation>已是最新。</translation>
    </message>
    <message>
        <source>Synced.</source>
        <translation>已同步。</translation>
    </message>
    <message>
        <source>Memory changed here while syncing; nothing was sent. Sync again to merge it: {paths}</source>
        <translation>同步过程中本机的记忆发生了变化；没有发送任何内容。请再同步一次以合并：{paths}</translation>
    </message>
    <message>
        <source>{n} record(s) changed on both machines: choose a version for each, then sync again. Nothing was pushed.</source>
        <translation>{n} 条记录在两台机器上都被修改：请为每条选择一个版本，然后再同步。没有推送任何内容。</translation>
    </message>
    <message>
        <source>No sync review item {item}. Run `dsh-memory sync review` to list them.</source>
        <translation>没有同步审阅项 {item}。运行 `dsh-memory sync review` 列出它们。</translation>
    </message>
    <message>
        <source>{name} changed here since the review was made; sync again to review it afresh.</source>
        <translation>{name} 在生成审阅之后又在本机被修改；请再同步一次以重新审阅。</translation>
    </message>
    <message>
        <source>GLOBAL.md can&apos;t be deleted by a sync review; choose or edit a text.</source>
        <translation>同步审阅不能删除 GLOBAL.md；请选择或编辑一个文本。</translation>
    </message>
    <message>
        <source>An edited version of {name} needs its text.</source>
        <translation>{name} 的编辑版本需要填写文本。</translation>
    </message>
    <message>
        <source>{path} is a symbolic link; sync never writes through one. Remove it and retry.</source>
        <translation>{path} 是符号链接；同步从不通过符号链接写入。请删除它后重试。</translation>
    </message>
    <message>
        <source>Sync needs git, and it is not installed (or not on PATH). Install git (Debian/Ubuntu: `sudo apt install git`, macOS: `xcode-select --install`, Windows: git-scm.com), then sync again. Your memory is unchanged.</source>
        <translation>同步需要 git，但它没有安装（或不在 PATH 中）。请安装 git（Debian/Ubuntu：`sudo apt install git`，macOS：`xcode-select --install`，Windows：git-scm.com），然后再同步。你的记忆没有改变。</translation>
    </message>
    <message>
        <source>git {command} failed: {detail}</source>
        <translation>git {command} 失败：{detail}</translation>
    </message>
    <message>
        <source>git object {sha} is missing from the sync repository</source>
        <translation>同步仓库中缺少 git 对象 {sha}</translation>
    </message>
    <message>
        <source>git fast-import did not create the commit</source>
        <translation>git fast-import 没有创建提交</translation>
    </message>
    <message>
        <source>Could not reach the sync remote {url}: {detail}</source>
        <translation>无法连接同步远端 {url}：{detail}</translation>
    </message>
    <message>
        <source>Could not fetch from {url}: {detail}</source>
        <translation>无法从 {url} 获取：{detail}</translation>
    </message>
    <message>
        <source>Could not push to {url}: {detail}</source>
        <translation>无法推送到 {url}：{detail}</translation>
    </message>
    <message>
        <source>The remote has changes this machine has not merged yet (the push was rejected). Sync again to merge them first.</source>
        <translation>远端有本机尚未合并的更改（推送被拒绝）。请再同步一次，先合并它们。</translation>
    </message>
    <message>
        <source>GLOBAL.md was deleted on the other machine; it is kept here</source>
        <translation>GLOBAL.md 在另一台机器上被删除；本机保留它</translation>
    </message>
    <message>
        <source>changes inside archived workspaces are not synced record by record</source>
        <translation>已归档工作区内的更改不会逐条记录同步</translation>
    </message>
    <message>
        <source>the synced workspace has no usable scope.json; map it to a folder first</source>
        <translation>同步来的工作区没有可用的 scope.json；请先把它对应到一个文件夹</translation>
    </message>
    <message>
        <source>holds a credential-shaped value; never written into memory here</source>
        <translation>含有形似凭据的值；永远不会写入本机的记忆</translation>
    </message>
    <message>
        <source>invalid here; a merge never rewrites an invalid file</source>
        <translation>在本机无效；合并从不改写无效文件</translation>
    </message>
    <message>
        <source>not a regular file (a symbolic link or a folder)</source>
        <translation>不是普通文件（符号链接或文件夹）</translation>
    </message>
    <message>
        <source>not readable, or over the size limit</source>
        <translation>无法读取，或超过大小上限</translation>
    </message>
    <message>
        <source>over the size limit</source>
        <translation>超过大小上限</translation>
    </message>
    <message>
        <source>not valid UTF-8</source>
        <translation>不是有效的 UTF-8</translation>
    </message>
    <message>
        <source>contains NUL bytes</source>
        <translation>含有 NUL 字节</translation>
    </message>
    <message>
        <source>not a valid record</source>
        <translation>不是有效的记录</translation>
    </message>
    <message>
        <source>Workspace {key} already belongs to {cwd}; nothing to move.</source>
        <translation>工作区 {key} 已经属于 {cwd}；无需移动。</translation>
    </message>
    <message>
        <source>The Recycle Bin already holds an archived workspace {key}; restore or purge it before moving this one (the move archives the old copy). Nothing was changed.</source>
        <translation>回收站里已有一个已归档的工作区 {key}；请先恢复或永久删除它，再移动这个工作区（移动会归档旧副本）。没有做任何更改。</translation>
    </message>
    <message>
        <source>Choose a version for each record in both workspaces before moving: {names}</source>
        <translation>移动之前，请为两个工作区中都有的每条记录选择一个版本：{names}</translation>
    </message>
    <message>
        <source>Workspace {name} changed since the move was planned; review it again. Nothing was moved.</source>
        <translation>规划移动之后工作区 {name} 又被修改；请重新审阅。没有移动任何内容。</translation>
    </message>
    <message>
        <source>Base URL: {why}.</source>
        <translation>基础 URL：{why}。</translation>
    </message>
    <message>
        <source>API key variable: this looks like a key, not a variable name. Keys are never saved:
put the key in an environment variable and type that variable&apos;s NAME here (like MY_LLM_API_KEY).</source>
        <translation>API 密钥变量：这看起来是密钥本身，而不是变量名。密钥永远不会被保存：
请把密钥放进一个环境变量，然后在这里填写那个变量的名字（例如 MY_LLM_API_KEY）。</translation>
    </message>
    <message>
        <source>A custom endpoint needs a base URL and a model name.</source>
        <translation>自定义端点需要填写基础 URL 和模型名。</translation>
    </message>
    <message>
        <source>base_url must be an http(s) URL like https://api.deepseek.com, got {value}</source>
        <translation>base_url 必须是 http(s) 网址，例如 https://api.deepseek.com，而填写的是 {value}</translation>
    </message>
    <message>
        <source>base_url must not contain a user name or password; use api_key_env</source>
        <translation>base_url 不能包含用户名或密码；密钥请用 api_key_env</translation>
    </message>
    <message>
        <source>base_url must not contain a query string or fragment (keys belong in api_key_env)</source>
        <translation>base_url 不能包含查询字符串或片段（密钥应放在 api_key_env 里）</translation>
    </message>
    <message>
        <source>record {name}</source>
        <translation>记忆 {name}</translation>
    </message>
    <message>
        <source>supersedes [[{name}]] ({detail}): Replace it, Keep both or Merge</source>
        <translation>取代 [[{name}]]（{detail}）：替换、两者都保留或合并</translation>
    </message>
    <message>
        <source>contradicts [[{name}]] (which says {word}): Replace it, Keep both or Merge</source>
        <translation>与 [[{name}]] 矛盾（它说的是 {word}）：替换、两者都保留或合并</translation>
    </message>
    <message>
        <source>{old} → {new}</source>
        <translation>{old} → {new}</translation>
    </message>
    <message>
        <source>the same fact, changed</source>
        <translation>同一事实，内容已变</translation>
    </message>
    <message>
        <source>unsupported by the cited evidence: the user&apos;s words at seq {seqs} don&apos;t mention {words}</source>
        <translation>引用的证据不支持：seq {seqs} 中用户的原话没有提到 {words}</translation>
    </message>
    <message>
        <source>reference given by the user (seq {seqs})</source>
        <translation>用户给出的引用（seq {seqs}）</translation>
    </message>
    <message>
        <source>constraint stated by the user (seq {seqs})</source>
        <translation>用户说明的约束（seq {seqs}）</translation>
    </message>
    <message>
        <source>superseded by [[{new}]]: the user gave a new value for what [[{old}]] said</source>
        <translation>被 [[{new}]] 取代：用户为 [[{old}]] 所说的内容给出了新值</translation>
    </message>
    <message>
        <source>the description is {n} characters; a one-line hook of about 100 reads best in MEMORY.md</source>
        <translation>描述有 {n} 个字符；约 100 个字符的一行提示在 MEMORY.md 中最易读</translation>
    </message>
</context>
</TS>
