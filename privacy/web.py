"""Settings > Erase my memory: a confirmation page, then the erase."""

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render

from privacy.services import memory_erase_user


class EraseForm(forms.Form):
    username = forms.CharField(label="Type your username to confirm", max_length=150)

    def __init__(self, *args, user, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.user = user

    def clean_username(self) -> str:
        value = self.cleaned_data["username"].strip()
        if value != self.user.get_username():
            raise forms.ValidationError("That is not your username: nothing was erased.")
        return value


@login_required
def account_erase(request: HttpRequest) -> HttpResponse:
    """GET shows what would be erased; POST with the username typed erases it all."""
    form = EraseForm(request.POST or None, user=request.user)
    if request.method == "POST" and form.is_valid():
        counts = memory_erase_user(user=request.user)
        messages.success(
            request,
            f"Your memory was erased: {counts['knowledge']} item(s), {counts['turns']} "
            f"turn(s), {counts['tool_calls']} tool call(s), {counts['findings']} finding(s).",
        )
        return redirect("web-settings")
    counts = memory_erase_user(user=request.user, dry_run=True)
    return render(request, "web/account_erase.html", {"form": form, "counts": counts})
