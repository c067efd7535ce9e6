"""gunicorn's settings for quizsvc: `make run` serves from the repository's root, where
gunicorn reads this file by default (``--config gunicorn.conf.py`` names it elsewhere); the
command line's options (bind, workers, threads, logs) come on top of it.

The limits on what a request's head may hold, checked by gunicorn before the app sees the
request, which it refuses with a 414 or 431 page of its own (HTML, not the API's JSON:
docs/api.md): well above any request a client of the app sends. The longest request line
of the API is under 400 bytes (ids are at most 100 characters); a header holds at most a
browser's cookie (4,096 bytes) or a bearer token.
"""

# bytes of the request line (method, path and query, protocol): gunicorn's maximum
limit_request_line = 8190
# bytes of one header, name and value
limit_request_field_size = 16380
# headers of one request (gunicorn's default)
limit_request_fields = 100
