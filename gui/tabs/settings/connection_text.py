"""The Test connection outcome in the user's language, worded from its kind and fields.

:func:`core.settings_form.summarize_connection` sorts a report into the cases a user tells apart;
this module says each case in a translated sentence built from the endpoint that was tested and
the report's fields (status, time, whether the model is listed). A kind not mapped here shows the
core's English text, so nothing is ever lost.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from PySide6.QtCore import QCoreApplication

from core.model_catalog import ModelChoice
from core.settings_form import ConnectionOutcome

translate = QCoreApplication.translate


def outcome_text(outcome: ConnectionOutcome, choice: ModelChoice | None, timeout: float) -> tuple[str, str]:
    """(headline, detail) for ``outcome`` of testing ``choice``."""
    if choice is None or outcome.kind in ("failed", ""):
        return outcome.headline, outcome.detail
    url = choice.base_url
    host = urlsplit(url).hostname or url
    k = outcome.kind
    if k == "ok":
        detail = translate("ConnectionText", "Connected to {url} in {ms} ms.").format(
            url=url, ms=f"{outcome.elapsed_ms:.0f}"
        )
        if outcome.model_listed is False:
            detail += " " + translate("ConnectionText", "It does not list the model {model}, though.").format(
                model=choice.model
            )
        return translate("ConnectionText", "Connection OK"), detail
    if k == "key-refused":
        return (
            translate("ConnectionText", "Key refused (HTTP {code})").format(code=outcome.status_code),
            translate("ConnectionText", "{url} refused the key. Check the key in the variable {env}.").format(
                url=url, env=choice.api_key_env or translate("ConnectionText", "(none)")
            ),
        )
    if k == "http":
        detail = translate("ConnectionText", "{url} answered HTTP {code}.").format(url=url, code=outcome.status_code)
        if outcome.api_detail:
            detail += f" ({outcome.api_detail})"  # the server's own words
        return translate("ConnectionText", "HTTP {code}").format(code=outcome.status_code), detail
    if k == "no-key":
        return (
            translate("ConnectionText", "API key variable not set"),
            translate(
                "ConnectionText",
                "The variable {env} is not set in this environment. Set it where the app is started, then test again.",
            ).format(env=choice.api_key_env),
        )
    if k == "timeout":
        return (
            translate("ConnectionText", "Timed out"),
            translate(
                "ConnectionText", "{url} did not answer within {seconds} s. Try again, or raise the request timeout."
            ).format(url=url, seconds=f"{timeout:g}"),
        )
    if k == "dns":
        return (
            translate("ConnectionText", "Host name not found"),
            translate(
                "ConnectionText",
                "The host name {host} could not be resolved. Check the base URL for typos, and this "
                "computer's network or DNS settings.",
            ).format(host=host),
        )
    if k == "refused":
        return (
            translate("ConnectionText", "Connection refused"),
            translate(
                "ConnectionText", "Nothing is listening at {url}: check the base URL and that the server is running."
            ).format(url=url),
        )
    if k == "unreachable":
        return (
            translate("ConnectionText", "Could not connect"),
            translate("ConnectionText", "Could not reach {url}. Check the base URL and the network connection.").format(
                url=url
            ),
        )
    return outcome.headline, outcome.detail
