"""Forms of the web app. They only parse input; the services validate and write."""

import zoneinfo

from django import forms
from django.core.exceptions import ValidationError

from memory.models import CATEGORIES, CONTENT_MAX, PRIVILEGED_CATEGORIES, SOURCE_CONFIDENCE

DATETIME_LOCAL = "%Y-%m-%dT%H:%M"
CATEGORY_CHOICES = [(c, c.capitalize()) for c in CATEGORIES + PRIVILEGED_CATEGORIES]
SOURCE_LABELS = {
    "user": "You",
    "tool": "Agents",
    "llm_extract": "Extraction",
    "error_auto": "Tool errors",
    "discovery": "Discovery",
    "consolidation": "Consolidation",
}
SOURCE_PHRASES = {
    "user": "added by you",
    "tool": "stored by an agent",
    "llm_extract": "learned from a conversation",
    "error_auto": "recorded from a tool error",
    "discovery": "approved from discovery",
    "consolidation": "from a consolidated session",
}


def apply_service_errors(form: forms.Form, error: ValidationError) -> None:
    """Show a service's ValidationError on the form: per field when it names one."""
    if hasattr(error, "error_dict"):
        for name, messages in error.message_dict.items():
            form.add_error(name if name in form.fields else None, messages)
    else:
        form.add_error(None, error.messages)


class MinuteDateTimeField(forms.DateTimeField):
    """The browser edits times to the minute: seconds alone are not a change."""

    def has_changed(self, initial, data) -> bool:
        try:
            before, after = self.to_python(initial), self.to_python(data)
        except ValidationError:
            return True
        if before is None or after is None:
            return before is not after
        return before.replace(second=0, microsecond=0) != after.replace(second=0, microsecond=0)


class MemoryForm(forms.Form):
    content = forms.CharField(
        max_length=CONTENT_MAX,
        widget=forms.Textarea(attrs={"rows": 4, "placeholder": "Prefers tea over coffee."}),
    )
    category = forms.ChoiceField(choices=CATEGORY_CHOICES, initial="fact")
    context = forms.CharField(
        max_length=100,
        required=False,
        initial="global",
        help_text="Where it applies, e.g. work or home; global applies everywhere.",
        widget=forms.TextInput(attrs={"list": "context-options"}),
    )
    entity = forms.CharField(
        max_length=200,
        required=False,
        help_text="Who or what it is about, e.g. person:sarah_chen or project:gaia.",
    )
    domain = forms.CharField(max_length=100, required=False)
    sensitive = forms.BooleanField(
        required=False,
        help_text="Sensitive memories are never given to agents unless they ask for them.",
    )
    due_at = MinuteDateTimeField(
        required=False,
        label="Due",
        input_formats=[DATETIME_LOCAL, "%Y-%m-%d %H:%M", "%Y-%m-%d"],
        widget=forms.DateTimeInput(attrs={"type": "datetime-local"}, format=DATETIME_LOCAL),
        help_text="For reminders: agents bring it up when it is near or overdue.",
    )


ORDERING_CHOICES = [
    ("-updated_at", "Recently changed"),
    ("-created_at", "Newest first"),
    ("created_at", "Oldest first"),
    ("-confidence", "Most confident"),
    ("-use_count", "Most used"),
    ("due_at", "Due soonest"),
]


class MemoryFilterForm(forms.Form):
    """The search box and listing filters (GET)."""

    q = forms.CharField(required=False, max_length=500, label="Search")
    category = forms.ChoiceField(required=False, choices=[("", "Any category")] + CATEGORY_CHOICES)
    context = forms.CharField(required=False, max_length=100)
    entity = forms.CharField(required=False, max_length=200)
    source = forms.ChoiceField(
        required=False,
        choices=[("", "Any source")] + [(s, SOURCE_LABELS[s]) for s in SOURCE_CONFIDENCE],
    )
    sensitive = forms.ChoiceField(
        required=False,
        choices=[("", "Sensitive or not"), ("yes", "Only sensitive"), ("no", "Not sensitive")],
    )
    ordering = forms.ChoiceField(required=False, choices=ORDERING_CHOICES, label="Sort")
    forgotten = forms.BooleanField(required=False, label="Include forgotten")
    superseded = forms.BooleanField(required=False, label="Include superseded")


EXPIRY_CHOICES = [("", "Never"), ("30", "In 30 days"), ("90", "In 90 days"), ("365", "In a year")]


class TokenForm(forms.Form):
    name = forms.CharField(
        max_length=100,
        help_text="Which agent uses it, e.g. laptop-assistant.",
        widget=forms.TextInput(attrs={"placeholder": "laptop-assistant"}),
    )
    expires_in = forms.ChoiceField(choices=EXPIRY_CHOICES, required=False, label="Expires")


class SettingsForm(forms.Form):
    timezone = forms.ChoiceField(
        label="Time zone",
        help_text="Dates here and dates your agents give without a zone use it.",
    )
    memory_enabled = forms.BooleanField(
        required=False,
        label="Memory is on",
        help_text="When off, agents and background tasks cannot store anything new.",
    )
    auto_extract = forms.BooleanField(
        required=False,
        label="Learn from conversations automatically",
        help_text="Background extraction turns what you tell your agents into memories.",
    )
    extraction_steering = forms.CharField(
        required=False,
        max_length=4000,
        label="What to remember",
        widget=forms.Textarea(attrs={"rows": 4}),
        help_text="Guidance for extraction, e.g. “Keep work facts; ignore small talk.”",
    )
    contexts = forms.CharField(
        required=False,
        widget=forms.Textarea(attrs={"rows": 3, "placeholder": "work\nhome"}),
        help_text="Your contexts, one per line. Suggested when you add memories.",
    )

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        zones = sorted(zoneinfo.available_timezones())
        self.fields["timezone"].choices = [(z, z.replace("_", " ")) for z in zones]

    def clean_contexts(self) -> list[str]:
        return [line.strip() for line in self.cleaned_data["contexts"].splitlines() if line.strip()]
