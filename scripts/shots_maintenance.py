"""Screenshot steps of the Maintenance tab (``scripts/screenshots.py`` runs them, last).

The stale-memory queue after a scan of the demo root (its project folders hold no files, so the
paths records mention are reported missing; one record links to a record that does not exist;
one is made 200 days old), the
load meter with a warning threshold low enough that the busiest demo workspaces are over it, the
export page with "include credentials" ticked (its warning shown), and a zip import waiting for
review in the Session Consolidation tab. Each step leaves the window in the state its PNG shows.
"""

from __future__ import annotations

import os
import re
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from core.store.files import SETTINGS

if TYPE_CHECKING:
    from scripts.screenshots import Shot


def _tab(shot: Shot) -> Any:
    return shot.tab("maintenance")


def stale_queue(shot: Shot) -> None:
    # One record last changed 200 days ago (the demo root is built fresh, so nothing is old yet).
    ml = next(w for w in shot.ctx.store.list_workspaces() if w.display_name == "ml-experiments")
    first = shot.ctx.store.read_workspace(ml.key).entries[0]
    old = time.time() - 200 * 86400
    os.utime(shot.ctx.root / "workspaces" / ml.key / first.file_name, (old, old))
    tab = _tab(shot)
    tab.pages.setCurrentWidget(tab.stale)
    tab.stale.days.setValue(90)
    tab.stale.start_scan()
    tab.stale.select_item("release-process", "broken-links")


def load_meter(shot: Shot) -> None:
    store = shot.ctx.store
    text, revision = store.files(SETTINGS).read_revised()
    text = re.sub(r"(?m)^load_warning_tokens:.*$", "", text or "") + "load_warning_tokens: 450\n"
    store.files(SETTINGS).replace(text, revision)
    tab = _tab(shot)
    tab.pages.setCurrentWidget(tab.loads)
    tab.refresh()
    tab.loads.table.selectRow(0)


def export_page(shot: Shot) -> None:
    tab = _tab(shot)
    tab.banner.clear()
    tab.pages.setCurrentWidget(tab.export)
    tab.export.secrets_box.setChecked(True)


def import_zip(shot: Shot) -> None:
    """Export atlas-web to a temp zip, add a record to it on "another machine", import it back."""
    from core.export import export_zip
    from core.models import PutOp, Record
    from core.store.fs import FileStore

    tab = _tab(shot)
    tab.export.secrets_box.setChecked(False)
    atlas = next(w for w in shot.ctx.store.list_workspaces() if w.display_name == "atlas-web")
    tmp = Path(tempfile.mkdtemp(prefix="dsh-shots-zip-"))
    laptop = FileStore(tmp / "laptop-memory")
    snap = laptop.create_workspace(atlas.cwd)
    note = Record(
        name="storybook-setup",
        description="Storybook runs on port 6006; start it with pnpm storybook",
        type="project",
        body="\nStorybook runs on port 6006 (`pnpm storybook`).\n\n**Why:** 6006 is free on every dev machine.\n",
    )
    laptop.commit(snap.key, [PutOp(record=note)], snap.revision)
    export_zip(laptop, tmp / "laptop-export.zip", include_global=False)
    shot.dialogs.answers.append(str(tmp / "laptop-export.zip"))
    tab.export.import_zip()


def import_damaged_zip(shot: Shot) -> None:
    """A zip whose manifest fails its CRC (issue 25): a translated sentence, not a raw exception."""
    import zipfile

    tab = _tab(shot)
    tab.pages.setCurrentWidget(tab.export)
    tmp = Path(tempfile.mkdtemp(prefix="dsh-shots-zip-"))
    path = tmp / "damaged-export.zip"
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("manifest.json", '{"format": "dsh-memory-export/1", "files": {}, "workspaces": []}')
    raw = bytearray(path.read_bytes())
    raw[30 + len("manifest.json") + 3] ^= 1  # one flipped bit in the stored manifest
    path.write_bytes(raw)
    shot.dialogs.answers.append(str(path))
    tab.export.import_zip()


STEPS: list[tuple[str, Any]] = [
    ("maintenance-review-queue", stale_queue),
    ("maintenance-load-meter", load_meter),
    ("maintenance-export", export_page),
    ("maintenance-import-review", import_zip),
    ("maintenance-import-damaged", import_damaged_zip),
]
