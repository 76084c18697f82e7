"""Create an API token for a user; the secret is printed alone on the last line.

A name is one agent's token: when the user already has a usable token of that name, the
command stops and says so (run twice, it had silently made two tokens of one name, and
the first stayed valid wherever it had been pasted). `--replace` revokes those and makes
the new one.
"""

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser

from accounts.models import ApiToken
from accounts.services import token_create, token_revoke


class Command(BaseCommand):
    help = "Create a named API token for USERNAME (shown once)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("username")
        parser.add_argument("--name", default="default", help="name of the agent using it")
        parser.add_argument(
            "--agent", default=None, help="agent the token acts as (default: --name)"
        )
        parser.add_argument(
            "--create-user",
            action="store_true",
            help="create the user (no password, cannot log in) if missing",
        )
        parser.add_argument(
            "--replace",
            action="store_true",
            help="revoke the user's usable tokens of this name, then make the new one",
        )

    def handle(
        self,
        *args,
        username: str,
        name: str,
        agent: str | None,
        create_user: bool,
        replace: bool,
        **options,
    ) -> None:
        User = get_user_model()
        user = User.objects.filter(username=username).first()
        if user is None:
            if not create_user:
                raise CommandError(f"No user '{username}'. Add --create-user to create one.")
            user = User.objects.create_user(username=username)
            self.stderr.write(
                f"Created user '{username}'. To log in to the web app, set a password: "
                f"manage.py changepassword {username}"
            )
        wanted = (name or "").strip()[:100] or "default"  # as token_create names it
        same_name = [
            token
            for token in ApiToken.objects.for_user(user).filter(name=wanted)
            if token.is_usable
        ]
        if same_name and not replace:
            raise CommandError(
                f"{username} already has a token named '{wanted}' (prefix "
                f"{same_name[0].prefix}...). Give this agent's token another --name, or "
                "add --replace to revoke it and make a new one."
            )
        for old in same_name:
            token_revoke(user=user, token_id=old.pk)
            self.stderr.write(f"Revoked token '{old.name}' ({old.prefix}...).")
        token, secret = token_create(user=user, name=name, agent_name=agent)
        self.stderr.write(f"Token '{token.name}' for {username} (shown once, store it now):")
        self.stdout.write(secret)
