"""The consent files, ``$MOATBRIDGE_HOME/consents/<licence>``: the one record of consent.

Read by the Python commands here and by the shims' sh runner (line 1 only), so both
decide the same way (core.licences). Written atomically, removed only when ours.
"""

from __future__ import annotations

from pathlib import Path

from moatbridge.adapters.hostfs import read_head
from moatbridge.adapters.toolchain_files import Written, write_owned
from moatbridge.core.licences import Consent, parse_consent, render_consent

MAX_CONSENT_BYTES = 4096


class ConsentFiles:
    def __init__(self, home: Path) -> None:
        self.directory = home / "consents"

    def path(self, licence_id: str) -> Path:
        return self.directory / licence_id

    def read(self, licence_id: str) -> Consent | None:
        """The recorded consent; None when absent, not a regular file, or damaged."""
        try:
            # Its head, like the runner's `read` of line 1: a longer file is not refused for that.
            data = read_head(self.path(licence_id), MAX_CONSENT_BYTES, follow_links=False)
        except OSError:
            return None
        return parse_consent(licence_id, data)

    def write(self, consent: Consent, dry_run: bool = False) -> Written:
        return write_owned(self.path(consent.licence), render_consent(consent), "consent", 0o644, dry_run)

    def remove(self, licence_id: str, dry_run: bool = False) -> bool:
        """Whatever file is there goes (the directory is moatbridge's): a damaged or hand-made
        consent must not outlive a revoke. True when something was (or would be) removed."""
        path = self.path(licence_id)
        if not (path.is_symlink() or path.is_file()):
            return False
        if not dry_run:
            path.unlink()
        return True
