"""`moatbridge license show|status|accept|revoke`: what each licence says, what you accepted."""

from __future__ import annotations

import os
import sys
from argparse import Namespace
from typing import Any

from moatbridge.adapters.consents import ConsentFiles
from moatbridge.adapters.console import ask_line, markup, print_json, safe, stdout_console
from moatbridge.adapters.records import load_licences
from moatbridge.core.licences import Licence, LicenceError, check_use, consent_status
from moatbridge.errors import InputError, UsageError
from moatbridge.paths import Paths
from moatbridge.services.consent import consents, new_consent


def run(args: Namespace) -> int:
    records = load_licences()
    files = consents(Paths.from_environ(os.environ))
    if args.license_command == "status":
        return status(records, files, args.json)
    licence = _pick(records, args.id)
    if args.license_command == "show":
        return show(licence)
    if args.license_command == "accept":
        return accept(licence, files, args)
    return revoke(licence, files, args.dry_run)


def _pick(records: dict[str, Licence], licence_id: str) -> Licence:
    if licence_id not in records:
        raise InputError(f"There is no licence {licence_id!r}.", f"known: {', '.join(sorted(records))}")
    return records[licence_id]


def show(licence: Licence) -> int:
    print(f"{licence.name} ({licence.id}, terms {licence.terms_version}) - {licence.vendor}")
    print(f"Covers: {', '.join(licence.flavours)} flavour(s). Allowed use: {', '.join(licence.allowed_use)}.")
    print("Acceptance required." if licence.acceptance_required else "No acceptance required.")
    print("\nIn plain words (moatbridge's summary, not the licence itself):")
    print(licence.summary)
    print(f"\nThe binding text: {licence.url}")
    if licence.text_in_image:
        print(f"Inside the image: {licence.text_in_image}")
    return 0


def status(records: dict[str, Licence], files: ConsentFiles, as_json: bool) -> int:
    rows: list[dict[str, Any]] = []
    for licence in records.values():
        consent = files.read(licence.id)
        rows.append(
            {
                "licence": licence.id,
                "name": licence.name,
                "acceptance_required": licence.acceptance_required,
                "status": consent_status(licence, consent),
                "use": consent.use if consent else None,
                "accepted_at": consent.at if consent else None,
                "accepted_by": consent.user if consent else None,
            }
        )
    if as_json:
        print_json({"licences": rows})
        return 0
    from rich.table import Table

    table = Table(title="Licences", title_justify="left")
    for column in ("licence", "status", "use", "accepted"):
        table.add_column(column)
    for row in rows:
        when = f"{row['accepted_at']} by {row['accepted_by']}" if row["accepted_at"] else "-"
        # Consents are files anyone could have edited: their fields are text, never markup.
        table.add_row(*(markup(x) for x in (row["licence"], row["status"], row["use"] or "-", when)))
    stdout_console().print(table)
    return 0


def accept(licence: Licence, files: ConsentFiles, args: Namespace) -> int:
    if not licence.acceptance_required:
        print(f"{licence.name} needs no acceptance.")
        return 0
    use = args.use
    if use is None:
        raise UsageError("Say how you will use it.", "pass --use non-commercial or --use commercial")
    check_use(licence, use)
    if not args.yes:
        if not sys.stdin.isatty():
            raise UsageError(
                "Accepting a licence needs a terminal to confirm on.",
                f"read 'moatbridge license show {licence.id}', then pass --yes to accept non-interactively",
            )
        show(licence)
        try:
            answer = ask_line(f"\nDo you accept the {licence.name} for {use} use? [y/N] ").strip().lower()
        except EOFError:  # Ctrl-D: no answer is no
            answer = ""
        if answer not in ("y", "yes"):
            raise LicenceError(
                f"The {licence.name} was not accepted; nothing was recorded.", "accept it to use SCALE"
            )
    consent = new_consent(licence, use)
    if args.dry_run:
        print(safe(f"Would record: {licence.id} accepted for {use} use by {consent.user}"))
        return 0
    files.write(consent)
    print(safe(f"Recorded: {licence.name} accepted for {use} use by {consent.user} at {consent.at}."))
    return 0


def revoke(licence: Licence, files: ConsentFiles, dry_run: bool) -> int:
    # Whatever is there goes, readable or not: after a revoke nothing runs under the licence.
    if not files.remove(licence.id, dry_run):
        print(f"No consent to {licence.id} is recorded.")
        return 0
    print(f"{'Would revoke' if dry_run else 'Revoked'} the consent to {licence.name}.")
    return 0
