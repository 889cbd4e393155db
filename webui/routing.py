from django.urls import path

from webui.capacity_consumer import CapacityProgressConsumer
from webui.consumers import RunEventsConsumer

websocket_urlpatterns = [
    path("ws/runs/<int:run_id>/", RunEventsConsumer.as_asgi()),
    path("ws/capacity/<int:question_id>/", CapacityProgressConsumer.as_asgi()),
]
