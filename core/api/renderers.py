"""The API's JSON renderer: DRF's, except that an answer holding text UTF-8 cannot encode
(a lone surrogate that reached a row some other way than through core.text's doors)
is sent with that text repaired (U+FFFD) instead of failing as a 500 that would hide
every other row of the list it is in."""

from rest_framework.renderers import JSONRenderer as DRFJSONRenderer

from core.text import repair_data


class JSONRenderer(DRFJSONRenderer):
    def render(self, data, accepted_media_type=None, renderer_context=None) -> bytes:
        try:
            return super().render(data, accepted_media_type, renderer_context)
        except UnicodeEncodeError:
            return super().render(repair_data(data), accepted_media_type, renderer_context)
