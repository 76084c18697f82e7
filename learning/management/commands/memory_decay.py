"""Apply decay now (the scheduled job, on demand)."""

from learning.command import JobCommand
from learning.decay import decay_user


class Command(JobCommand):
    help = (
        "Decay confidence (x0.9 per 30 idle days) and fade unused items (retention halves "
        "every GAIA_DECAY_HALF_LIFE_DAYS; pinned items never decay)."
    )

    def handle(self, *args, **options) -> None:
        self.each_user(options, lambda user, dry: decay_user(user=user, dry_run=dry))
