"""Scan this machine for one user and store what is found as proposals to review."""

from pathlib import Path

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError, CommandParser

from discovery import scanners, services
from discovery.scanners.base import DEFAULT_DAYS, DEFAULT_TIME_LIMIT, ScanContext, ScanReport
from privacy import services as privacy_services


class Command(BaseCommand):
    help = (
        "Run the discovery scanners on this machine and store their findings as proposals "
        "for USER to approve (web app: /discovery/, or the API). --reset erases them all."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--user", required=True, help="username the findings are for")
        parser.add_argument(
            "--sources", nargs="+", choices=list(scanners.SCANNERS), help="default: all"
        )
        parser.add_argument(
            "--roots", nargs="+", type=Path, help="project folders (default: ~/src, ~/code...)"
        )
        parser.add_argument("--home", type=Path, default=None, help="home directory to scan")
        parser.add_argument("--system-root", type=Path, default=Path("/"), help=
                            "machine root for installed applications (default /)")  # fmt: skip
        parser.add_argument("--days", type=int, default=DEFAULT_DAYS, help="history window")
        parser.add_argument("--time-limit", type=float, default=DEFAULT_TIME_LIMIT,
                            help="seconds per scanner")  # fmt: skip
        parser.add_argument("--dry-run", action="store_true", help="print, store nothing")
        parser.add_argument(
            "--reset", action="store_true", help="erase all discovery items and findings"
        )
        parser.add_argument("--yes", action="store_true", help="confirm --reset")

    def handle(self, *args, **options) -> None:
        try:
            user = get_user_model().objects.get(username=options["user"])
        except get_user_model().DoesNotExist:
            raise CommandError(f"No user '{options['user']}'.") from None
        if options["reset"]:
            return self.reset(user, confirmed=options["yes"])
        try:
            services.discovery_require_consent(user)
        except services.ConsentRequired:
            raise CommandError(
                f"Discovery is off for '{user.get_username()}'. They must turn it on first "
                "(web app: /discovery/ or Settings)."
            ) from None
        if options["days"] < 1:
            raise CommandError("--days must be at least 1.")
        ctx = ScanContext(
            home=(options["home"] or Path.home()).expanduser(),
            roots=tuple(options["roots"] or ()),
            system_root=options["system_root"],
            days=options["days"],
            time_limit=options["time_limit"],
        )
        reports = scanners.run_scanners(
            scanners.select(options["sources"]), ctx, on_report=self.progress
        )
        found = [f for r in reports for f in r.findings]
        failed = [r.scanner for r in reports if r.error]
        if options["dry_run"]:
            for finding in found:
                mark = " [sensitive]" if finding.sensitive else ""
                self.stdout.write(f"  [{finding.scanner}] {finding.content}{mark}")
            self.stdout.write(f"Dry run: {len(found)} finding(s), nothing stored.")
            return
        try:
            result = services.finding_propose_many(user=user, findings=[f.as_dict() for f in found])
        except ValidationError as error:
            raise CommandError(" ".join(error.messages)) from None
        skipped = result.as_dict()["skipped"]
        self.stdout.write(
            self.style.SUCCESS(f"Proposed {len(result.created)} new finding(s)")
            + f" from {len(found)} found; skipped "
            + ", ".join(f"{n} {why}" for why, n in skipped.items())
            + (f"; failed scanners: {', '.join(failed)}" if failed else "")
            + ". Review them at /discovery/ in the web app."
        )

    def progress(self, report: ScanReport) -> None:
        line = report.summary()
        self.stdout.write(self.style.ERROR(line) if report.error else line)

    def reset(self, user, *, confirmed: bool) -> None:
        preview = privacy_services.discovery_reset(user=user, dry_run=True)
        what = (
            f"{preview.erased_items} discovery item(s) and {preview.cleared_findings} "
            f"finding(s) of '{user.get_username()}'"
        )
        if not confirmed:
            self.stdout.write(f"Would erase {what}. Run again with --reset --yes to do it.")
            return
        result = privacy_services.discovery_reset(user=user)
        self.stdout.write(
            self.style.SUCCESS(
                f"Erased {result.erased_items} discovery item(s) and cleared "
                f"{result.cleared_findings} finding(s) of '{user.get_username()}'."
            )
        )
