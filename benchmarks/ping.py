"""The bare Flask app `benchmarks/load.py` measures the service against: one `/ping` route,
served by gunicorn with the same settings as the service."""

from flask import Flask


def create_app() -> Flask:
    app = Flask(__name__)

    @app.get("/ping")
    def ping():
        return "pong"

    return app
