<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
<context>
    <name>ExportPanel</name>
    <message>
        <source>Export</source>
        <translation>导出</translation>
    </message>
    <message>
        <source>A zip of plain Markdown (GLOBAL.md, each workspace&apos;s records and MEMORY.md) with a JSON manifest of checksums. The app&apos;s internals (.manager/, settings, receipts) are never included.</source>
        <translation>导出为纯 Markdown 的 zip 包（GLOBAL.md、各工作区的记忆和 MEMORY.md），附带记忆校验和的 JSON 清单。应用内部数据（.manager/、设置、回执）一律不包含。</translation>
    </message>
    <message>
        <source>Select all</source>
        <translation>全选</translation>
    </message>
    <message>
        <source>Select none</source>
        <translation>全不选</translation>
    </message>
    <message>
        <source>Include GLOBAL.md</source>
        <translation>包含 GLOBAL.md</translation>
    </message>
    <message>
        <source>Include records that look like they contain credentials</source>
        <translation>包含疑似含有凭据的记忆</translation>
    </message>
    <message>
        <source>⚠ The zip will hold API keys, tokens or passwords in plain text. Anyone who gets the file can use them: keep it private, and don&apos;t share or upload it.</source>
        <translation>⚠ zip 包中会以明文保存 API 密钥、令牌或密码。拿到这个文件的人都能使用它们：请妥善保管，不要分享或上传。</translation>
    </message>
    <message>
        <source>Export…</source>
        <translation>导出…</translation>
    </message>
    <message>
        <source>Import</source>
        <translation>导入</translation>
    </message>
    <message>
        <source>Import a zip exported by this app. It is checked first (manifest, checksums, paths, sizes); every change is then reviewed in the Session Consolidation tab, like a consolidation. Nothing is written until you commit there.</source>
        <translation>导入由本应用导出的 zip 包。会先做检查（清单、校验和、路径、大小），然后每项更改都像会话整理一样在「会话整理」标签页中审阅。在那里提交之前，不会写入任何内容。</translation>
    </message>
    <message>
        <source>Import zip…</source>
        <translation>导入 zip…</translation>
    </message>
    <message>
        <source>Export memory</source>
        <translation>导出记忆</translation>
    </message>
    <message>
        <source>Zip files (*.zip)</source>
        <translation>Zip 文件 (*.zip)</translation>
    </message>
    <message numerus="yes">
        <source>Exported {records} record(s) from %n workspace(s) to {path}.</source>
        <translation>
            <numerusform>已从 %n 个工作区导出 {records} 条记忆到 {path}。</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n file(s) left out (invalid records, or credential-shaped text): </source>
        <translation>
            <numerusform>有 %n 个文件未导出（无效记忆，或含有疑似凭据的文本）：</numerusform>
        </translation>
    </message>
    <message>
        <source>Nothing was exported: {why}</source>
        <translation>未导出任何内容：{why}</translation>
    </message>
    <message>
        <source>Import a memory zip</source>
        <translation>导入记忆 zip 包</translation>
    </message>
    <message>
        <source>Checking {name}…</source>
        <translation>正在检查 {name}…</translation>
    </message>
    <message numerus="yes">
        <source>%n review(s) from {name} are waiting in Session Consolidation → Imports.</source>
        <translation>
            <numerusform>来自 {name} 的 %n 个审阅已在「会话整理 → 导入」中等待处理。</numerusform>
        </translation>
    </message>
    <message>
        <source>{name} holds nothing new to review (already imported or already in memory).</source>
        <translation>{name} 中没有需要审阅的新内容（已导入过，或记忆中已有）。</translation>
    </message>
    <message numerus="yes">
        <source>%n file(s) left out:</source>
        <translation>
            <numerusform>有 %n 个文件被跳过：</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n file(s) look like they contain credentials; the review refuses them.</source>
        <translation>
            <numerusform>有 %n 个文件疑似包含凭据，审阅时会被拒绝。</numerusform>
        </translation>
    </message>
    <message>
        <source>Nothing was imported: {why}</source>
        <translation>未导入任何内容：{why}</translation>
    </message>
</context>
<context>
    <name>LoadMeterModel</name>
    <message>
        <source>Workspace</source>
        <translation>工作区</translation>
    </message>
    <message>
        <source>Records</source>
        <translation>记忆数</translation>
    </message>
    <message>
        <source>Total</source>
        <translation>合计</translation>
    </message>
    <message>
        <source>Est. tokens</source>
        <translation>估计 token 数</translation>
    </message>
    <message>
        <source>Status</source>
        <translation>状态</translation>
    </message>
    <message>
        <source>Led to a read</source>
        <translation>引出读取</translation>
    </message>
    <message>
        <source>The workspace&apos;s folder</source>
        <translation>工作区所在的文件夹</translation>
    </message>
    <message>
        <source>Valid records in the workspace</source>
        <translation>工作区中的有效记忆数</translation>
    </message>
    <message>
        <source>Size of GLOBAL.md: loaded in every workspace</source>
        <translation>GLOBAL.md 的大小：每个工作区都会加载</translation>
    </message>
    <message>
        <source>Size of this workspace&apos;s index (one line per record)</source>
        <translation>此工作区索引的大小（每条记忆一行）</translation>
    </message>
    <message>
        <source>Bytes an agent loads at start</source>
        <translation>智能体启动时加载的字节数</translation>
    </message>
    <message>
        <source>Estimated tokens: about 4 characters per token, 1 per Chinese character</source>
        <translation>估计的 token 数：英文约 4 个字符一个 token，中文每字一个</translation>
    </message>
    <message>
        <source>Over the warning threshold set in Settings?</source>
        <translation>是否超过设置中的警告阈值</translation>
    </message>
    <message>
        <source>Of the index bytes loaded at session start: the share whose record the agent then opened in the same session (from the usage ledger)</source>
        <translation>会话开始时载入的索引字节中，智能体随后在同一会话中打开了对应记录的那部分所占比例（来自使用记录）</translation>
    </message>
    <message>
        <source>Over — prune the index</source>
        <translation>超出 — 请精简索引</translation>
    </message>
    <message>
        <source>OK</source>
        <translation>正常</translation>
    </message>
    <message>
        <source>{tokens} tokens is over the warning threshold of {limit}. Shorten long descriptions, merge near-duplicates and delete records the agent no longer needs; GLOBAL.md counts in every workspace.</source>
        <translation>{tokens} 个 token，超过了警告阈值 {limit}。请缩短过长的描述、合并近似重复的记忆，并删除智能体不再需要的记忆；GLOBAL.md 在每个工作区都会计入。</translation>
    </message>
</context>
<context>
    <name>LoadPanel</name>
    <message>
        <source>Refresh</source>
        <translation>刷新</translation>
    </message>
    <message>
        <source>Review this workspace&apos;s records</source>
        <translation>审阅此工作区的记忆</translation>
    </message>
    <message>
        <source>Scan it in the review queue for old and duplicate records</source>
        <translation>在审阅队列中扫描它，找出过旧和重复的记忆</translation>
    </message>
    <message>
        <source>Warning above {limit} estimated tokens (change it in Settings).</source>
        <translation>估计超过 {limit} 个 token 时警告（可在设置中修改）。</translation>
    </message>
    <message>
        <source>No workspaces yet.</source>
        <translation>还没有工作区。</translation>
    </message>
    <message numerus="yes">
        <source>%n workspace(s) over the threshold.</source>
        <translation>
            <numerusform>%n 个工作区超过阈值。</numerusform>
        </translation>
    </message>
    <message>
        <source>Every workspace is under it.</source>
        <translation>所有工作区都在阈值以内。</translation>
    </message>
    <message>
        <source>The load meter could not be read: {why}</source>
        <translation>无法读取加载量：{why}</translation>
    </message>
    <message>
        <source>{folder} loads {tokens} tokens at start ({share} % of it is its own index). Shorten long descriptions, merge near-duplicates and delete records the agent no longer needs; GLOBAL.md counts in every workspace.</source>
        <translation>{folder} 启动时加载 {tokens} 个 token（其中 {share} % 是它自己的索引）。请缩短过长的描述、合并近似重复的记忆，并删除智能体不再需要的记忆；GLOBAL.md 在每个工作区都会计入。</translation>
    </message>
    <message>
        <source>Rows over the threshold are tinted: the agent starts with a crowded context there. Select one to see what to do.</source>
        <translation>超过阈值的行以底色标出：智能体在这些工作区启动时上下文较为拥挤。选中一行查看处理建议。</translation>
    </message>
</context>
<context>
    <name>MaintenanceHandoff</name>
    <message>
        <source>Global</source>
        <translation>全局记忆</translation>
    </message>
    <message numerus="yes">
        <source>%n review(s) from {name}; nothing is written until you commit.</source>
        <translation>
            <numerusform>来自 {name} 的 %n 个审阅；提交之前不会写入任何内容。</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>MaintenanceTab</name>
    <message>
        <source>Review queue</source>
        <translation>审阅队列</translation>
    </message>
    <message>
        <source>Load meter</source>
        <translation>加载量</translation>
    </message>
    <message>
        <source>Export / import</source>
        <translation>导出 / 导入</translation>
    </message>
    <message>
        <source>Maintenance</source>
        <translation>维护</translation>
    </message>
</context>
<context>
    <name>MaintenanceUsage</name>
    <message>
        <source>never</source>
        <translation>从未</translation>
    </message>
    <message numerus="yes">
        <source>%n use(s)</source>
        <translation>
            <numerusform>%n 次使用</numerusform>
        </translation>
    </message>
    <message>
        <source>today</source>
        <translation>今天</translation>
    </message>
    <message numerus="yes">
        <source>%n day(s) ago</source>
        <translation><numerusform>%n 天前</numerusform></translation>
    </message>
    <message numerus="yes">
        <source>%n use(s), last {when}</source>
        <translation><numerusform>%n 次使用，最近一次：{when}</numerusform></translation>
    </message>
    <message numerus="yes">
        <source>{share} % (%n session(s))</source>
        <translation>
            <numerusform>{share} %（%n 个会话）</numerusform>
        </translation>
    </message>
    <message>
        <source>No session in the usage ledger shows this workspace&apos;s index being loaded.</source>
        <translation>使用记录中没有会话显示载入过此工作区的索引。</translation>
    </message>
    <message numerus="yes">
        <source>The index was loaded in %n session(s). {records} of its records were then opened in the same session: {followed} of its {total} bytes led to a read. The rest was loaded and not followed up.</source>
        <translation>
            <numerusform>索引在 %n 个会话中被载入。其中 {records} 条记录随后在同一会话中被打开：{total} 字节中有 {followed} 字节引出了读取，其余只是载入、未被跟进。</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>MaintenanceWording</name>
    <message>
        <source>Not changed for a long time</source>
        <translation>长期未更新</translation>
    </message>
    <message>
        <source>Broken links</source>
        <translation>失效链接</translation>
    </message>
    <message>
        <source>Near-duplicate</source>
        <translation>近似重复</translation>
    </message>
    <message>
        <source>Mentions missing files</source>
        <translation>提到的文件已不存在</translation>
    </message>
    <message>
        <source>Never used by an agent</source>
        <translation>从未被智能体使用</translation>
    </message>
    <message>
        <source>Used often, never changed</source>
        <translation>常用但从未修改</translation>
    </message>
    <message numerus="yes">
        <source>not changed for %n day(s)</source>
        <translation>
            <numerusform>已有 %n 天未更新</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>never used since created (%n day(s))</source>
        <translation>
            <numerusform>创建以来从未被使用（%n 天）</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>used {uses} times, never changed in %n day(s)</source>
        <translation>
            <numerusform>已使用 {uses} 次，%n 天内从未修改</numerusform>
        </translation>
    </message>
    <message>
        <source>links to {links}, which do not exist in this workspace</source>
        <translation>链接到 {links}，但此工作区中没有这些记忆</translation>
    </message>
    <message>
        <source>says nearly the same as [[{name}]] ({score} % similar)</source>
        <translation>与 [[{name}]] 内容几乎相同（相似度 {score} %）</translation>
    </message>
    <message>
        <source>mentions {paths}, no longer in the workspace folder</source>
        <translation>提到了 {paths}，但工作区文件夹中已没有这些文件</translation>
    </message>
    <message>
        <source>Still true? Keep it or mark it reviewed; delete it if it no longer applies.</source>
        <translation>仍然有效吗？保留或标记为已审阅；如果已不适用就删除。</translation>
    </message>
    <message>
        <source>Edit the record to fix or remove the links, or create the missing records.</source>
        <translation>编辑记忆，修正或删除这些链接，或者创建缺失的记忆。</translation>
    </message>
    <message>
        <source>Merge the two: edit one to hold both facts, then delete the other.</source>
        <translation>合并两条：编辑其中一条使其包含两者的内容，再删除另一条。</translation>
    </message>
    <message>
        <source>The files were moved or deleted: update the paths, or delete the record.</source>
        <translation>这些文件已被移动或删除：请更新路径，或删除这条记忆。</translation>
    </message>
    <message>
        <source>No agent opened, searched or was served it in the sessions counted. Is its description a good hook? Sharpen it, or delete the record if it is not needed.</source>
        <translation>在已统计的会话中，没有智能体打开、搜索到或通过 MCP 获取过它。它的描述是否足够醒目？改写描述，或在不再需要时删除这条记录。</translation>
    </message>
    <message>
        <source>Agents rely on it often and nobody has changed it in a year: check it is still true.</source>
        <translation>智能体经常依赖它，但一年来没人修改过：请确认它仍然正确。</translation>
    </message>
    <message>
        <source>This file is not a zip file, or it could not be read.</source>
        <translation>该文件不是 zip 文件，或无法读取。</translation>
    </message>
    <message>
        <source>The zip is encrypted; export it again without a password.</source>
        <translation>该 zip 包已加密；请不设密码重新导出。</translation>
    </message>
    <message>
        <source>The zip is too large to import (over {limit} bytes); export fewer workspaces at a time.</source>
        <translation>该 zip 包太大，无法导入（超过 {limit} 字节）；请每次少导出一些工作区。</translation>
    </message>
    <message>
        <source>The zip holds too many files (over {limit}); export fewer workspaces at a time.</source>
        <translation>该 zip 包中的文件过多（超过 {limit} 个）；请每次少导出一些工作区。</translation>
    </message>
    <message>
        <source>The zip has no manifest.json: it is not an export of this app.</source>
        <translation>该 zip 包中没有 manifest.json：不是本应用导出的。</translation>
    </message>
    <message>
        <source>The zip&apos;s manifest.json cannot be read: the zip is damaged or not an export of this app.</source>
        <translation>无法读取 zip 包中的 manifest.json：文件已损坏，或不是本应用导出的。</translation>
    </message>
    <message>
        <source>The zip is not in this app&apos;s export format.</source>
        <translation>该 zip 包不是本应用的导出格式。</translation>
    </message>
    <message>
        <source>{path} in the zip is larger than a memory file can be ({limit} bytes); refused.</source>
        <translation>zip 包中的 {path} 超过了记忆文件的大小上限（{limit} 字节）；已拒绝。</translation>
    </message>
    <message>
        <source>{path} in the zip expands to far more than it stores (a zip bomb); refused.</source>
        <translation>zip 包中的 {path} 解压后远大于其压缩大小（zip 炸弹）；已拒绝。</translation>
    </message>
    <message>
        <source>The zip is damaged ({path} fails its checksum or its header is wrong).</source>
        <translation>zip 文件已损坏（{path} 校验和不符，或其文件头有误）。</translation>
    </message>
    <message>
        <source>The zip is damaged: {path} holds compressed data that cannot be unpacked.</source>
        <translation>zip 文件已损坏：{path} 中的压缩数据无法解压。</translation>
    </message>
    <message>
        <source>{path} in the zip uses a compression method this app cannot read.</source>
        <translation>zip 中的 {path} 使用了本应用无法读取的压缩方式。</translation>
    </message>
    <message>
        <source>The zip is cut short: {path} ends before its data does.</source>
        <translation>zip 文件不完整：{path} 的数据在结尾前就中断了。</translation>
    </message>
    <message>
        <source>The memory of workspace {path} is in the Recycle Bin (archived): restore it first, then import the zip again.</source>
        <translation>工作区 {path} 的记忆在回收站中（已归档）：请先恢复，再重新导入该 zip 包。</translation>
    </message>
    <message>
        <source>Nothing was imported.</source>
        <translation>未导入任何内容。</translation>
    </message>
    <message>
        <source>not a file an export holds (path outside the export layout)</source>
        <translation>不是导出包应有的文件（路径不符合导出结构）</translation>
    </message>
    <message>
        <source>a symbolic link, not a file</source>
        <translation>是符号链接，不是文件</translation>
    </message>
    <message>
        <source>the zip holds this name twice; both copies were left out</source>
        <translation>zip 包中有两个同名文件；两份都已跳过</translation>
    </message>
    <message>
        <source>not listed in the manifest</source>
        <translation>清单中没有列出</translation>
    </message>
    <message>
        <source>changed since the export (its checksum differs from the manifest)</source>
        <translation>导出后被改动过（校验和与清单不符）</translation>
    </message>
    <message>
        <source>listed in the manifest but not in the zip</source>
        <translation>清单中列出了，但 zip 包中没有</translation>
    </message>
    <message>
        <source>not UTF-8 text</source>
        <translation>不是 UTF-8 文本</translation>
    </message>
    <message>
        <source>not a valid record</source>
        <translation>不是有效的记忆</translation>
    </message>
    <message>
        <source>its workspace has no folder path in the manifest</source>
        <translation>清单中没有它所属工作区的文件夹路径</translation>
    </message>
    <message>
        <source>{path}: {why}</source>
        <translation>{path}：{why}</translation>
    </message>
</context>
<context>
    <name>StalePanel</name>
    <message>
        <source>Which workspaces to scan</source>
        <translation>要扫描哪些工作区</translation>
    </message>
    <message>
        <source> days</source>
        <translation> 天</translation>
    </message>
    <message>
        <source>Records not changed for this many days are listed as old</source>
        <translation>超过这么多天未更新的记忆会被列为过旧</translation>
    </message>
    <message>
        <source>All reasons</source>
        <translation>全部原因</translation>
    </message>
    <message>
        <source>Scan</source>
        <translation>扫描</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>Workspaces:</source>
        <translation>工作区：</translation>
    </message>
    <message>
        <source>Old after:</source>
        <translation>多久算旧：</translation>
    </message>
    <message>
        <source>Show:</source>
        <translation>显示：</translation>
    </message>
    <message>
        <source>Keep</source>
        <translation>保留</translation>
    </message>
    <message>
        <source>Leave the record as it is; hidden until the next scan</source>
        <translation>保持记忆不变；在下次扫描前隐藏</translation>
    </message>
    <message>
        <source>Mark reviewed</source>
        <translation>标记为已审阅</translation>
    </message>
    <message>
        <source>Keep the record and leave it out of the queue until it changes (stored outside the record)</source>
        <translation>保留这条记忆，并在它下次改动前不再列入队列（标记保存在记忆之外）</translation>
    </message>
    <message>
        <source>Edit in Workspace</source>
        <translation>在工作区中编辑</translation>
    </message>
    <message>
        <source>Delete…</source>
        <translation>删除…</translation>
    </message>
    <message>
        <source>Delete the record (kept in history; restore it from there)</source>
        <translation>删除这条记忆（保留在历史中，可从那里恢复）</translation>
    </message>
    <message numerus="yes">
        <source>All workspaces (%n)</source>
        <translation>
            <numerusform>全部工作区（%n 个）</numerusform>
        </translation>
    </message>
    <message>
        <source>Scanning…</source>
        <translation>正在扫描…</translation>
    </message>
    <message>
        <source>Scanning workspace {done} of {total}…</source>
        <translation>正在扫描第 {done} 个工作区，共 {total} 个…</translation>
    </message>
    <message>
        <source>The scan was cancelled; nothing was changed.</source>
        <translation>扫描已取消，未做任何更改。</translation>
    </message>
    <message>
        <source>{key}: {why}</source>
        <translation>{key}：{why}</translation>
    </message>
    <message>
        <source>Some workspaces could not be scanned:</source>
        <translation>部分工作区无法扫描：</translation>
    </message>
    <message numerus="yes">
        <source>Near-duplicates were not looked for in %n very large workspace(s) (comparing every pair would take minutes): {folders}</source>
        <translation>
            <numerusform>在 %n 个非常大的工作区中未查找近似重复（逐对比较需要几分钟）：{folders}</numerusform>
        </translation>
    </message>
    <message>
        <source>The scan failed: {why}</source>
        <translation>扫描失败：{why}</translation>
    </message>
    <message>
        <source>Memory changed since the scan. Scan again to see the current state.</source>
        <translation>扫描后记忆有变化。请重新扫描以查看当前状态。</translation>
    </message>
    <message>
        <source>Scan to find records that may be out of date: not changed for a long time, with broken [[links]], near-duplicates, or mentioning files that no longer exist.</source>
        <translation>扫描以找出可能过时的记忆：长期未更新、含有失效的 [[链接]]、近似重复，或提到已不存在的文件。</translation>
    </message>
    <message numerus="yes">
        <source>Nothing to review in %n record(s). Records you marked reviewed stay hidden until they change.</source>
        <translation>
            <numerusform>%n 条记忆中没有需要审阅的。标记为已审阅的记忆在改动前不会再出现。</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n item(s) to review.</source>
        <translation>
            <numerusform>有 %n 项待审阅。</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Marked %n record(s) reviewed.</source>
        <translation>
            <numerusform>已将 %n 条记忆标记为已审阅。</numerusform>
        </translation>
    </message>
    <message>
        <source>Delete</source>
        <translation>删除</translation>
    </message>
    <message>
        <source>Select the items of one record to delete it.</source>
        <translation>请只选择同一条记忆的项目再删除。</translation>
    </message>
    <message>
        <source>Delete record?</source>
        <translation>删除记忆？</translation>
    </message>
    <message>
        <source>Delete {name} from {folder}? It is kept in history: you can restore it from the record&apos;s history or the Recycle Bin.</source>
        <translation>要从 {folder} 删除 {name} 吗？它会保留在历史中：可以从记忆的历史或回收站中恢复。</translation>
    </message>
    <message>
        <source>Deleted {name}. It is kept in history.</source>
        <translation>已删除 {name}，它仍保留在历史中。</translation>
    </message>
    <message>
        <source>This workspace changed since the scan (an agent, the CLI or an editor). Nothing was deleted. Scan again and review the current version.</source>
        <translation>扫描后此工作区有改动（来自智能体、命令行或编辑器）。未删除任何内容。请重新扫描并审阅当前版本。</translation>
    </message>
    <message>
        <source>Nothing was changed: {why}</source>
        <translation>未做任何更改：{why}</translation>
    </message>
</context>
<context>
    <name>StaleQueueModel</name>
    <message>
        <source>Record</source>
        <translation>记忆</translation>
    </message>
    <message>
        <source>Workspace</source>
        <translation>工作区</translation>
    </message>
    <message>
        <source>Reason</source>
        <translation>原因</translation>
    </message>
    <message>
        <source>Details</source>
        <translation>详情</translation>
    </message>
    <message>
        <source>Agent use</source>
        <translation>智能体使用</translation>
    </message>
</context>
</TS>
