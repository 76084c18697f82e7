"""Forms of the web app. They only parse input; the services validate and write."""

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
    pinned = forms.BooleanField(
        required=False,
        help_text="Pinned memories never fade, however long nobody uses them.",
    )
    due_at = MinuteDateTimeField(
        required=False,
        label="Due",
        input_formats=[DATETIME_LOCAL, "%Y-%m-%d %H:%M", "%Y-%m-%d"],
        widget=forms.DateTimeInput(attrs={"type": "datetime-local"}, format=DATETIME_LOCAL),
        help_text="For reminders: agents bring it up when it is near or overdue.",
    )
    reason = forms.CharField(
        max_length=300,
        required=False,
        label="Why",
        help_text="Kept with the earlier version in the memory's history.",
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
    agent = forms.CharField(required=False, max_length=100)
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
