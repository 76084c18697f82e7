"""Create an app (one credential for an application with many people) and its first token;
the secret is printed alone on the last line of stdout, like create_api_token.

An existing name is refused, so a typo or a second run never makes a second app nor a
token nobody meant. `--token` is the deliberate way to give an existing app another token
(to rotate: add one, deploy it, revoke the old one in the admin); it never creates an app.
"""

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError, CommandParser

from accounts import people
from accounts.models import App


class Command(BaseCommand):
    help = "Create app NAME and its first token, or (--token) add a token to app NAME."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("name", help="the app's name: letters, digits, - and _")
        parser.add_argument("--token-name", default="default", help="the token's name")
        parser.add_argument("--description", default="", help="what the app is (on creation)")
        parser.add_argument(
            "--token",
            action="store_true",
            help="add a token to the existing app NAME instead of creating an app",
        )

    def handle(
        self, *args, name: str, token_name: str, description: str, token: bool, **options
    ) -> None:
        try:
            if token:
                secret = self._add_token(name, token_name, description)
            else:
                secret = self._create(name, token_name, description)
        except ValidationError as error:
            raise CommandError(" ".join(error.messages)) from None
        self.stdout.write(secret)

    def _create(self, name: str, token_name: str, description: str) -> str:
        existing = App.objects.filter(name=name.strip()).first()
        if existing is not None:
            usable = sum(1 for t in existing.tokens.all() if t.is_usable)
            raise CommandError(
                f"App '{existing.name}' exists ({usable} usable token(s)). Add --token "
                "(with a new --token-name) to give it another token."
            )
        app, made, secret = people.app_create_with_token(
            name=name, description=description, token_name=token_name
        )
        self.stderr.write(f"Created app '{app.name}'.")
        self.stderr.write(f"Token '{made.name}' for app {app.name} (shown once, store it now):")
        return secret

    def _add_token(self, name: str, token_name: str, description: str) -> str:
        app = App.objects.filter(name=name.strip()).first()
        if app is None:
            raise CommandError(f"No app '{name}'. Leave out --token to create it.")
        if description:
            raise CommandError("--description is for a new app; change it in the admin.")
        made, secret = people.app_token_add(app=app, name=token_name)
        if app.disabled_at is not None:
            self.stderr.write(f"Note: app '{app.name}' is disabled; its tokens answer 401.")
        self.stderr.write(f"Token '{made.name}' for app {app.name} (shown once, store it now):")
        return secret
