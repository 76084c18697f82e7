"""A person's entities and the relations between them, kept over time.

The graph sits below memory in the app order: it names knowledge items by id (memory
reads them back through its own `for_user`), and its relations point at the turns they
came from. Erasure removes its rows with the rest (privacy).
"""

from django.db import models
from django.utils import timezone

from conversations.models import Turn
from core.ownership import OwnedModel, unique_per_owner
from graph.vocabulary import KINDS, RELATION_TYPES


class Entity(OwnedModel):
    """One person, organisation, project, place... in someone's life, under one name."""

    kind = models.CharField(max_length=20, choices=[(k, k) for k in KINDS], default="thing")
    name = models.CharField(max_length=200)
    holder = models.BooleanField(default=False)  # the person whose memory this is ("me")
    created_at = models.DateTimeField(default=timezone.now)
    updated_at = models.DateTimeField(default=timezone.now)

    class Meta:
        verbose_name_plural = "entities"
        indexes = [models.Index(fields=["owner", "kind", "name"], name="graph_entity_kind")]

    def __str__(self) -> str:
        return f"{self.kind}:{self.name}"


class Alias(OwnedModel):
    """A name an entity goes by ("Rui", "Rui Costa", "my partner"); one entity per name."""

    entity = models.ForeignKey(Entity, on_delete=models.CASCADE, related_name="aliases")
    text = models.CharField(max_length=200)
    key = models.CharField(max_length=200)  # `vocabulary.key(text)`

    class Meta:
        verbose_name_plural = "aliases"
        constraints = [unique_per_owner("key", name="graph_alias_one_entity")]


class Mention(OwnedModel):
    """A knowledge item about an entity (the item's id: memory owns the row)."""

    entity = models.ForeignKey(Entity, on_delete=models.CASCADE, related_name="mentions")
    item_id = models.BigIntegerField(db_index=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["entity", "item_id"], name="graph_mention_once")
        ]


class Relation(OwnedModel):
    """`subject` `type` `object` from `valid_from` until `valid_to` (None: it holds).

    A relation that stops holding is ended, not deleted: `valid_to` says when, `ended_by`
    which relation contradicted it (None when ended by hand)."""

    subject = models.ForeignKey(Entity, on_delete=models.CASCADE, related_name="relations_out")
    type = models.CharField(max_length=30, choices=[(t, t) for t in RELATION_TYPES])
    object = models.ForeignKey(Entity, on_delete=models.CASCADE, related_name="relations_in")
    valid_from = models.DateTimeField(default=timezone.now)
    valid_to = models.DateTimeField(null=True, blank=True)
    ended_by = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.SET_NULL, related_name="ended"
    )
    item_ids = models.JSONField(default=list, blank=True)  # the items it came from
    turns = models.ManyToManyField(Turn, blank=True, related_name="+")
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        indexes = [
            models.Index(fields=["owner", "subject", "type"], name="graph_relation_subject"),
            models.Index(fields=["owner", "object", "type"], name="graph_relation_object"),
        ]

    @property
    def current(self) -> bool:
        return self.valid_to is None

    def __str__(self) -> str:
        return f"{self.subject.name} {self.type} {self.object.name}"
