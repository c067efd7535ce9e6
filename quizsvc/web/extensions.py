from typing import Any

from flask.json.provider import DefaultJSONProvider
from flask_login import LoginManager
from flask_wtf.csrf import CSRFProtect

csrf = CSRFProtect()
login_manager = LoginManager()
login_manager.login_view = "auth.login"


def _refuse_constant(name: str) -> None:
    raise ValueError(f'{name} is not JSON (send infinities as the strings "inf" and "-inf")')


class StrictJSONProvider(DefaultJSONProvider):
    """Reads request bodies as JSON (RFC 8259) and nothing more, failing with ValueError only,
    which is what `request.get_json` and the API treat as "not JSON" (400).

    Python's json module also accepts NaN, Infinity and -Infinity, which are not JSON and
    would be graded as numbers; and it raises RecursionError for arrays nested a few thousand
    deep, which a body far under MAX_CONTENT_LENGTH holds.
    """

    def loads(self, s: str | bytes, **kwargs: Any) -> Any:
        kwargs.setdefault("parse_constant", _refuse_constant)
        try:
            return super().loads(s, **kwargs)
        except RecursionError:
            raise ValueError("arrays or objects are nested too deeply") from None
