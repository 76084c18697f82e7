"""Back up and restore in the web app: the export link, importing a file, import progress.

The person importing their own file here is trusted: items keep their sources,
confidence and privileged categories (an agent's token import cannot raise them).
"""

from django import forms
from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render

from memory import import_jobs, selectors
from memory.models import ImportJob
from memory.portability.format import LINE_MAX

RECENT_JOBS = 20


class ImportForm(forms.Form):
    file = forms.FileField(
        label="Export file (.jsonl)",
        help_text="A file downloaded from Export here or on another Gaia server.",
    )

    def clean_file(self):
        upload = self.cleaned_data["file"]
        if upload.size > settings.GAIA_MAX_IMPORT_BYTES:
            raise ValidationError(f"At most {settings.GAIA_MAX_IMPORT_BYTES} bytes.")
        return upload


def _lines(upload):
    """The upload line by line, split at "\\n" only (as the API reads a body)."""
    upload.seek(0)
    return iter(lambda: upload.readline(LINE_MAX + 1), b"")


def _messages(error: ValidationError) -> list[str]:
    """Each message with the line it is about ("line 7: ...")."""
    if hasattr(error, "error_dict"):
        return [f"{name}: {m}" for name, ms in error.message_dict.items() for m in ms]
    return list(error.messages)


@login_required
def import_page(request: HttpRequest) -> HttpResponse:
    """GET: export link, upload form and recent imports; POST: import a file."""
    form = ImportForm(request.POST or None, request.FILES or None)
    status = 200
    if request.method == "POST" and form.is_valid():
        try:
            result, job = import_jobs.import_start(
                user=request.user, lines=_lines(form.cleaned_data["file"]), trusted=True
            )
        except ValidationError as error:
            for message in _messages(error)[:5]:
                form.add_error("file", message)
            status = 400
        else:
            if job is not None:
                return redirect("web-import-detail", pk=job.pk)
            created, skipped = sum(result["created"].values()), sum(result["skipped"].values())
            messages.success(
                request, f"Imported: {created} new record(s), {skipped} already there."
            )
            return redirect("web-import")
    elif request.method == "POST":
        status = 400
    jobs = selectors.import_jobs_list(user=request.user)[:RECENT_JOBS]
    return render(request, "web/import.html", {"form": form, "jobs": jobs}, status=status)


@login_required
def import_detail(request: HttpRequest, pk: int) -> HttpResponse:
    """One import run by a worker: its progress (the page reloads itself while it runs)."""
    try:
        job = selectors.import_job_get(user=request.user, job_id=pk)
    except ImportJob.DoesNotExist:
        raise Http404 from None
    return render(request, "web/import_job.html", {"job": job})
