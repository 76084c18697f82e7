"""What the app and staff endpoints take and answer: apps, app tokens, people, the tokens
an app issues to its people. Secrets appear only in the answer that created them."""

from rest_framework import serializers

from accounts.models import ApiToken, App, AppPerson, AppToken
from core.api.serializers import JSONObjectField, StrictSerializer
from core.api.shapes import optional_text, read_only_meta


class PersonSerializer(serializers.ModelSerializer):
    user_id = serializers.CharField(
        source="external_id", help_text="The app's own id for this person."
    )
    metadata = serializers.JSONField(help_text="What the app stored with the person.")

    class Meta:
        model = AppPerson
        fields = ["user_id", "metadata", "created_at"]
        read_only_fields = fields


class PersonCreateSerializer(StrictSerializer):
    user_id = serializers.CharField(
        max_length=200,
        help_text="The app's id for the person (1-200 characters; any text, e.g. an email "
        "address). Creating an existing one answers it unchanged (200).",
    )
    metadata = JSONObjectField(
        required=False, help_text="Anything the app wants kept with the person (on creation)."
    )


class PersonErasedSerializer(serializers.Serializer):
    user_id = serializers.CharField(help_text="The person erased.")
    erased = serializers.DictField(
        child=serializers.IntegerField(),
        help_text="What went, by kind (knowledge, turns, sessions, ..., tokens, account).",
    )


class PersonTokenSerializer(serializers.ModelSerializer):
    agent = serializers.CharField(
        source="agent.name", read_only=True, allow_null=True, help_text="The agent it acts as."
    )
    usable = serializers.BooleanField(
        source="is_usable", read_only=True, help_text="False once revoked or expired."
    )

    class Meta:
        model = ApiToken
        fields = ["id", "name", "agent", "prefix", "created_at", "last_used_at", "revoked_at"]
        fields += ["usable"]
        read_only_fields = fields


class NewPersonTokenSerializer(PersonTokenSerializer):
    secret = serializers.CharField(
        read_only=True, help_text="The token itself: shown only now, store it."
    )

    Meta = read_only_meta(PersonTokenSerializer, "secret")


class PersonTokenCreateSerializer(StrictSerializer):
    name = serializers.CharField(
        max_length=100, help_text="The token's name (one usable token per name and person)."
    )
    agent = optional_text(100, "The person's agent it acts as (default: the token's name).")


class AppTokenSerializer(serializers.ModelSerializer):
    usable = serializers.BooleanField(
        source="is_usable", read_only=True, help_text="False once revoked or the app disabled."
    )

    class Meta:
        model = AppToken
        fields = ["id", "name", "prefix", "created_at", "last_used_at", "revoked_at", "usable"]
        read_only_fields = fields


class NewAppTokenSerializer(AppTokenSerializer):
    secret = serializers.CharField(
        read_only=True, help_text="The app token itself: shown only now, store it."
    )

    Meta = read_only_meta(AppTokenSerializer, "secret")


class AppSerializer(serializers.ModelSerializer):
    people = serializers.IntegerField(
        source="people_count", read_only=True, help_text="How many people the app has."
    )
    tokens = AppTokenSerializer(many=True, read_only=True, help_text="Its tokens (no secrets).")

    class Meta:
        model = App
        fields = ["id", "name", "description", "created_at", "disabled_at", "people", "tokens"]
        read_only_fields = fields


class MeSerializer(AppSerializer):
    token = AppTokenSerializer(read_only=True, help_text="The token this request came with.")

    Meta = read_only_meta(AppSerializer, "token")


class AppCreateSerializer(StrictSerializer):
    name = serializers.CharField(
        max_length=100, help_text="A unique name: letters, digits, - and _ (e.g. support-bot)."
    )
    description = optional_text(2000, "What the app is.")
    token_name = serializers.CharField(
        max_length=100, required=False, help_text="Its first token's name (default: default)."
    )


class CreatedAppSerializer(AppSerializer):
    token = NewAppTokenSerializer(read_only=True, help_text="Its first token, with the secret.")

    Meta = read_only_meta(AppSerializer, "token")
