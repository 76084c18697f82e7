"""What every form of the web app shares."""

from django import forms
from django.core.exceptions import ValidationError


def apply_service_errors(form: forms.Form, error: ValidationError) -> None:
    """Show a service's ValidationError on the form: per field when it names one."""
    if hasattr(error, "error_dict"):
        for name, messages in error.message_dict.items():
            form.add_error(name if name in form.fields else None, messages)
    else:
        form.add_error(None, error.messages)
