from django.apps import AppConfig


class SkillsConfig(AppConfig):
    """Skill memory: what agents of one type learned to do, shared by all their users."""

    name = "skills"

    def ready(self) -> None:
        # receivers and tools reach the models, which are importable only once the registry is ready
        from skills import agent_tools, receivers

        receivers.install()
        agent_tools.install()  # its tool (and prompt section) join memory's agent surface
