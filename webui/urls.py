from django.contrib import admin
from django.urls import include, path

from webui import accounts, moved, pages, password_reset
from webui.api import api

# Also for errors raised outside any view (middleware): JSON for the API, 503 when the database is
# overloaded or unreachable.
handler500 = "webui.overload.server_error"

urlpatterns = [
    path("admin/", admin.site.urls),
    path("", include(moved.urlpatterns)),  # old API paths, redirected: before the API
    path("api/", api.urls),
    path("", include(accounts.urlpatterns)),  # sign up, sign in, sign out, change password, delete account
    path("", include(password_reset.urlpatterns)),  # forgot password
    path("", include(pages.urlpatterns)),
]
