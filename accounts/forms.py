"""Forms of the account pages: API tokens and settings."""

import zoneinfo

from django import forms

EXPIRY_CHOICES = [("", "Never"), ("30", "In 30 days"), ("90", "In 90 days"), ("365", "In a year")]


class TokenForm(forms.Form):
    name = forms.CharField(
        max_length=100,
        help_text="Which agent uses it, e.g. laptop-assistant.",
        widget=forms.TextInput(attrs={"placeholder": "laptop-assistant"}),
    )
    agent = forms.CharField(
        max_length=100,
        required=False,
        help_text="The agent it acts as (default: the token's name); several tokens may "
        "share one agent.",
    )
    expires_in = forms.ChoiceField(choices=EXPIRY_CHOICES, required=False, label="Expires")


class AgentForm(forms.Form):
    default_context = forms.CharField(
        max_length=100,
        required=False,
        label="Default context",
        help_text="Where its writes go when they name none (global: shared by every agent).",
    )
    description = forms.CharField(max_length=2000, required=False)
    agent_type = forms.CharField(max_length=100, required=False, label="Type")


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
