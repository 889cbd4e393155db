"""The API's JSON contract, one module per router (webui/routers/<area>.py answers with
webui/schemas/<area>.py) and common.py for what every router shares: the base schemas, which name
fields in snake_case and write them in camelCase, and the one error shape."""
