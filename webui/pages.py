"""Page views; owned by the browser-UI work (this placeholder only keeps the URLconf importable)."""

urlpatterns: list = []
