"""Forgot password: Django's own reset flow (PasswordResetView and the three after it) in the app's look.

The link goes by e-mail through settings.EMAIL_BACKEND (the console, i.e. the server's log, unless
EMAIL_HOST names an SMTP server: docs/OPERATIONS.md) to the address the account gave; Django sends
nothing, and says nothing different, when no account has that address. Each request counts as a
sign-in try of the client's address (services/accounts.py), so one address cannot flood a mailbox.
Production mode only: in single-user mode no password is needed to see or change anything.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib.auth import views as auth_views
from django.contrib.auth.forms import PasswordResetForm, SetPasswordForm
from django.contrib.auth.models import User
from django.http import HttpRequest, HttpResponse, HttpResponseBase
from django.shortcuts import render
from django.urls import path, reverse_lazy
from django.views import View

from webui.services import accounts
from webui.services.errors import LimitExceeded


class ProductionOnly(View):
    """In single-user mode a reset page only says why it is not there (403 to a POST)."""

    def dispatch(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponseBase:
        if settings.SCHEDLAB_SINGLE_USER:
            status = 403 if request.method == "POST" else 200
            return render(request, "schedlab/password_reset_unavailable.html", status=status)
        return super().dispatch(request, *args, **kwargs)


class ResetRequest(ProductionOnly, auth_views.PasswordResetView):
    template_name = "schedlab/password_reset.html"
    email_template_name = "schedlab/password_reset_email.txt"
    subject_template_name = "schedlab/password_reset_subject.txt"
    success_url = reverse_lazy("password-reset-sent")

    def form_valid(self, form: PasswordResetForm) -> HttpResponse:
        try:
            accounts.count_reset_request(self.request)
        except LimitExceeded as err:
            form.add_error(None, err.message[:1].upper() + err.message[1:] + ".")
            return self.render_to_response(self.get_context_data(form=form), status=err.status)
        return super().form_valid(form)

    def form_invalid(self, form: PasswordResetForm) -> HttpResponse:
        return self.render_to_response(self.get_context_data(form=form), status=400)  # as the other account pages


class ResetSent(ProductionOnly, auth_views.PasswordResetDoneView):
    template_name = "schedlab/password_reset_sent.html"


class ResetConfirm(ProductionOnly, auth_views.PasswordResetConfirmView):
    """The link's page: a new password twice (Django's validators), or why the link no longer works."""

    template_name = "schedlab/password_reset_confirm.html"
    success_url = reverse_lazy("password-reset-done")

    def form_invalid(self, form: SetPasswordForm[User]) -> HttpResponse:
        return self.render_to_response(self.get_context_data(form=form), status=400)  # as the other account pages


class ResetDone(ProductionOnly, auth_views.PasswordResetCompleteView):
    template_name = "schedlab/password_reset_done.html"


urlpatterns = [
    path("accounts/password/reset/", ResetRequest.as_view(), name="password-reset"),
    path("accounts/password/reset/sent/", ResetSent.as_view(), name="password-reset-sent"),
    path("accounts/password/reset/done/", ResetDone.as_view(), name="password-reset-done"),
    path("accounts/password/reset/<uidb64>/<token>/", ResetConfirm.as_view(), name="password-reset-confirm"),
]
