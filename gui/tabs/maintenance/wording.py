"""What the Maintenance tab says about core objects, in the user's language.

Core gives typed reasons and parameters (``StaleItem.reason`` + ``days``/``links``/…,
``ImportZipError.kind``, ``Refused.kind``); this module turns them into translated sentences and
never looks at core's English text except as the fallback for a kind it does not know.
"""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication

from core.import_zip import ImportZipError, Refused
from core.staleness import Reason, StaleItem


def reason_label(reason: Reason) -> str:
    labels = {
        "old": QCoreApplication.translate("MaintenanceWording", "Not changed for a long time"),
        "broken-links": QCoreApplication.translate("MaintenanceWording", "Broken links"),
        "near-duplicate": QCoreApplication.translate("MaintenanceWording", "Near-duplicate"),
        "missing-files": QCoreApplication.translate("MaintenanceWording", "Mentions missing files"),
        "never-used": QCoreApplication.translate("MaintenanceWording", "Never used by an agent"),
        "used-unchanged": QCoreApplication.translate("MaintenanceWording", "Used often, never changed"),
    }
    return labels.get(reason, reason)


def reason_detail(item: StaleItem) -> str:
    if item.reason == "old":
        return QCoreApplication.translate("MaintenanceWording", "not changed for %n day(s)", "", item.days)
    if item.reason == "never-used":
        return QCoreApplication.translate("MaintenanceWording", "never used since created (%n day(s))", "", item.days)
    if item.reason == "used-unchanged":
        return QCoreApplication.translate(
            "MaintenanceWording", "used {uses} times, never changed in %n day(s)", "", item.days
        ).format(uses=item.uses)
    if item.reason == "broken-links":
        return QCoreApplication.translate(
            "MaintenanceWording", "links to {links}, which do not exist in this workspace"
        ).format(links=", ".join(f"[[{x}]]" for x in item.links))
    if item.reason == "near-duplicate":
        return QCoreApplication.translate(
            "MaintenanceWording", "says nearly the same as [[{name}]] ({score} % similar)"
        ).format(name=item.similar, score=item.score)
    if item.reason == "missing-files":
        return QCoreApplication.translate(
            "MaintenanceWording", "mentions {paths}, no longer in the workspace folder"
        ).format(paths=", ".join(item.paths))
    return item.detail


def reason_advice(reason: Reason) -> str:
    advice = {
        "old": QCoreApplication.translate(
            "MaintenanceWording", "Still true? Keep it or mark it reviewed; delete it if it no longer applies."
        ),
        "broken-links": QCoreApplication.translate(
            "MaintenanceWording", "Edit the record to fix or remove the links, or create the missing records."
        ),
        "near-duplicate": QCoreApplication.translate(
            "MaintenanceWording", "Merge the two: edit one to hold both facts, then delete the other."
        ),
        "missing-files": QCoreApplication.translate(
            "MaintenanceWording", "The files were moved or deleted: update the paths, or delete the record."
        ),
        "never-used": QCoreApplication.translate(
            "MaintenanceWording",
            "No agent opened, searched or was served it in the sessions counted. Is its description a good "
            "hook? Sharpen it, or delete the record if it is not needed.",
        ),
        "used-unchanged": QCoreApplication.translate(
            "MaintenanceWording",
            "Agents rely on it often and nobody has changed it in a year: check it is still true.",
        ),
    }
    return advice.get(reason, "")


def _zip_errors() -> dict[str, str]:
    return {
        "not-a-zip": QCoreApplication.translate(
            "MaintenanceWording", "This file is not a zip file, or it could not be read."
        ),
        "encrypted": QCoreApplication.translate(
            "MaintenanceWording", "The zip is encrypted; export it again without a password."
        ),
        "too-large": QCoreApplication.translate(
            "MaintenanceWording",
            "The zip is too large to import (over {limit} bytes); export fewer workspaces at a time.",
        ),
        "too-many": QCoreApplication.translate(
            "MaintenanceWording", "The zip holds too many files (over {limit}); export fewer workspaces at a time."
        ),
        "no-manifest": QCoreApplication.translate(
            "MaintenanceWording", "The zip has no manifest.json: it is not an export of this app."
        ),
        "bad-manifest": QCoreApplication.translate(
            "MaintenanceWording",
            "The zip's manifest.json cannot be read: the zip is damaged or not an export of this app.",
        ),
        "wrong-format": QCoreApplication.translate("MaintenanceWording", "The zip is not in this app's export format."),
        "member-too-large": QCoreApplication.translate(
            "MaintenanceWording", "{path} in the zip is larger than a memory file can be ({limit} bytes); refused."
        ),
        "zip-bomb": QCoreApplication.translate(
            "MaintenanceWording", "{path} in the zip expands to far more than it stores (a zip bomb); refused."
        ),
        "damaged": QCoreApplication.translate(
            "MaintenanceWording", "The zip is damaged ({path} fails its checksum or its header is wrong)."
        ),
        "corrupt-data": QCoreApplication.translate(
            "MaintenanceWording", "The zip is damaged: {path} holds compressed data that cannot be unpacked."
        ),
        "unsupported-method": QCoreApplication.translate(
            "MaintenanceWording", "{path} in the zip uses a compression method this app cannot read."
        ),
        "truncated": QCoreApplication.translate(
            "MaintenanceWording", "The zip is cut short: {path} ends before its data does."
        ),
        "archived": QCoreApplication.translate(
            "MaintenanceWording",
            "The memory of workspace {path} is in the Recycle Bin (archived): restore it first, then import the "
            "zip again.",
        ),
    }


def zip_error(exc: ImportZipError) -> str:
    template = _zip_errors().get(exc.kind)
    if template is None:
        return exc.message
    nothing = QCoreApplication.translate("MaintenanceWording", "Nothing was imported.")
    return template.format(path=exc.path, limit=f"{exc.limit:,}") + " " + nothing


def _refused_reasons() -> dict[str, str]:
    return {
        "unsafe-path": QCoreApplication.translate(
            "MaintenanceWording", "not a file an export holds (path outside the export layout)"
        ),
        "symlink": QCoreApplication.translate("MaintenanceWording", "a symbolic link, not a file"),
        "duplicate": QCoreApplication.translate(
            "MaintenanceWording", "the zip holds this name twice; both copies were left out"
        ),
        "unlisted": QCoreApplication.translate("MaintenanceWording", "not listed in the manifest"),
        "hash-mismatch": QCoreApplication.translate(
            "MaintenanceWording", "changed since the export (its checksum differs from the manifest)"
        ),
        "missing": QCoreApplication.translate("MaintenanceWording", "listed in the manifest but not in the zip"),
        "not-text": QCoreApplication.translate("MaintenanceWording", "not UTF-8 text"),
        "invalid-record": QCoreApplication.translate("MaintenanceWording", "not a valid record"),
        "bad-workspace": QCoreApplication.translate(
            "MaintenanceWording", "its workspace has no folder path in the manifest"
        ),
    }


def refused_line(item: Refused) -> str:
    why = _refused_reasons().get(item.kind, item.detail)
    return QCoreApplication.translate("MaintenanceWording", "{path}: {why}").format(path=item.path, why=why)
