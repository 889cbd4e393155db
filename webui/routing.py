from django.urls import path

from webui.capacity_consumer import CapacityProgressConsumer
from webui.consumers import RunEventsConsumer
from webui.upload_consumer import UploadProgressConsumer
from webui.upgrade_consumer import FleetProgressConsumer, UpgradeProgressConsumer

# Channels routes ASGI applications with Django's path() (its documented way); Django's stubs type
# path() for views only, and Channels' stubs want their own pattern type: the two do not meet.
websocket_urlpatterns = [
    path("ws/runs/<int:run_id>/", RunEventsConsumer.as_asgi()),  # type: ignore[arg-type]
    path("ws/capacity/<int:question_id>/", CapacityProgressConsumer.as_asgi()),  # type: ignore[arg-type]
    path("ws/upgrades/<int:upgrade_id>/", UpgradeProgressConsumer.as_asgi()),  # type: ignore[arg-type]
    path("ws/fleet/<int:fleet_id>/", FleetProgressConsumer.as_asgi()),  # type: ignore[arg-type]
    path("ws/uploads/<int:upload_id>/", UploadProgressConsumer.as_asgi()),  # type: ignore[arg-type]
]
