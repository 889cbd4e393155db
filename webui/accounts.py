"""The account pages: sign up, sign in, sign out, change the password, delete the account (server-rendered
forms with Django's CSRF token, the work done by webui/services/accounts.py, as the API's /api/session
does it), and ``context``, the template context processor that tells every page who is here (the
header, the ownership notices)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django import forms
from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.auth.views import redirect_to_login
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import path, reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.cache import never_cache
from django.views.decorators.debug import sensitive_post_parameters
from django.views.decorators.http import require_POST

from webui.services import accounts
from webui.services.accounts import Claimed, Holdings, SignedIn
from webui.services.errors import AccountInvalid, LimitExceeded, SignInFailed

NEXT = "next"
ACCOUNT_PAGES = "/accounts/"


def context(request: HttpRequest) -> dict[str, Any]:
    """For every template: single-user mode, and where signing in or up comes back to (this page; from
    an account page, the scenario list)."""
    here = reverse("home") if request.path.startswith(ACCOUNT_PAGES) else request.get_full_path()
    return {"single_user": settings.SCHEDLAB_SINGLE_USER, "here": here}


class SignInForm(forms.Form):
    username = forms.CharField(
        label="Name", max_length=150, widget=forms.TextInput(attrs={"autocomplete": "username", "autofocus": True})
    )
    password = forms.CharField(
        label="Password",
        max_length=4096,
        strip=False,
        widget=forms.PasswordInput(attrs={"autocomplete": "current-password"}),
    )


class SignUpForm(SignInForm):
    field_order = ["username", "email", "password", "password_again"]
    email = forms.EmailField(
        label="E-mail (optional: where a forgotten password's reset link goes)",
        max_length=254,
        required=False,
        widget=forms.EmailInput(attrs={"autocomplete": "email"}),
    )
    password = forms.CharField(
        label="Password",
        max_length=4096,
        strip=False,
        widget=forms.PasswordInput(attrs={"autocomplete": "new-password"}),
    )
    password_again = forms.CharField(
        label="Password again",
        max_length=4096,
        strip=False,
        widget=forms.PasswordInput(attrs={"autocomplete": "new-password"}),
    )

    def clean(self) -> dict[str, Any] | None:
        cleaned = super().clean()
        if cleaned and cleaned.get("password") != cleaned.get("password_again"):
            self.add_error("password_again", "The two passwords differ: type the same one twice.")
        return cleaned


def _next_url(request: HttpRequest) -> str:
    """Where to go afterwards: ?next= (or the form's) when it is on this site, else the scenario list."""
    wanted = request.POST.get(NEXT) or request.GET.get(NEXT) or ""
    if url_has_allowed_host_and_scheme(wanted, allowed_hosts={request.get_host()}, require_https=request.is_secure()):
        return wanted
    return reverse("home")


def _kept(claimed: Claimed) -> str:
    if not claimed.scenarios and not claimed.runs:
        return ""
    return f" The {claimed.scenarios} scenario(s) and {claimed.runs} run(s) this browser made are now in your account."


@sensitive_post_parameters()
@never_cache
def sign_up(request: HttpRequest) -> HttpResponse:
    form = SignUpForm(request.POST if request.method == "POST" else None)

    def act(request: HttpRequest, data: dict[str, str]) -> SignedIn:
        return accounts.sign_up(request, data["username"], data["password"], data.get("email", ""))

    return _account_form(request, form, act, "schedlab/sign_up.html", "Welcome, {name}: you are signed in.")


@sensitive_post_parameters()
@never_cache
def sign_in(request: HttpRequest) -> HttpResponse:
    form = SignInForm(request.POST if request.method == "POST" else None)

    def act(request: HttpRequest, data: dict[str, str]) -> SignedIn:
        return accounts.sign_in(request, data["username"], data["password"])

    return _account_form(request, form, act, "schedlab/sign_in.html", "Signed in as {name}.")


def _account_form(
    request: HttpRequest,
    form: SignInForm,
    act: Callable[[HttpRequest, dict[str, str]], SignedIn],
    template: str,
    said: str,
) -> HttpResponse:
    """The form again with what went wrong beside the field it concerns (400, 401 or 429), or, once
    ``act`` signed the person in, the page they came from with ``said`` as a message."""
    status = 400 if form.is_bound else 200
    if form.is_valid():
        try:
            signed_in = act(request, form.cleaned_data)
        except AccountInvalid as err:
            form.add_error(err.field, err.problems)
            status = err.status
        except (SignInFailed, LimitExceeded) as err:
            form.add_error(None, _in_words(err))
            status = err.status
        else:
            name = signed_in.user.get_username()
            messages.success(request, said.format(name=name) + _kept(signed_in.claimed))
            return redirect(_next_url(request))
    return render(request, template, {"form": form, NEXT: _next_url(request)}, status=status)


def _in_words(err: SignInFailed | LimitExceeded) -> str:
    """An error's message as a sentence of the page's."""
    return err.message[:1].upper() + err.message[1:] + "."


@require_POST
def sign_out(request: HttpRequest) -> HttpResponse:
    if request.user.is_authenticated:
        name = request.user.get_username()
        accounts.sign_out(request)
        messages.info(request, f"Signed out. What {name} made stays in that account: sign in to see it again.")
    return redirect("home")


def _password_field(label: str, autocomplete: str, autofocus: bool = False) -> forms.CharField:
    attrs: dict[str, str | bool] = {"autocomplete": autocomplete}
    if autofocus:
        attrs["autofocus"] = True
    return forms.CharField(label=label, max_length=4096, strip=False, widget=forms.PasswordInput(attrs=attrs))


class PasswordChangeForm(forms.Form):
    current_password = _password_field("Current password", "current-password", autofocus=True)
    new_password = _password_field("New password", "new-password")
    new_password_again = _password_field("New password again", "new-password")

    def clean(self) -> dict[str, Any] | None:
        cleaned = super().clean()
        if cleaned and cleaned.get("new_password") != cleaned.get("new_password_again"):
            self.add_error("new_password_again", "The two new passwords differ: type the same one twice.")
        return cleaned


class DeleteAccountForm(forms.Form):
    password = _password_field("Your password", "current-password", autofocus=True)


# The service names a field by its API name (services/accounts.py); the forms name it in Python's way.
FORM_FIELDS = {
    accounts.CURRENT_PASSWORD: "current_password",
    accounts.NEW_PASSWORD: "new_password",
    accounts.PASSWORD: "password",
}


def _refused(form: forms.Form, err: AccountInvalid | LimitExceeded) -> int:
    """What the service refused, on the form beside the field it concerns; returns the status to answer with."""
    if isinstance(err, AccountInvalid):
        form.add_error(FORM_FIELDS[err.field], err.problems)
    else:
        form.add_error(None, _in_words(err))
    return err.status


@sensitive_post_parameters()
@never_cache
@login_required
def change_password(request: HttpRequest) -> HttpResponse:
    form = PasswordChangeForm(request.POST if request.method == "POST" else None)
    status = 400 if form.is_bound else 200
    if form.is_valid():
        data = form.cleaned_data
        try:
            accounts.change_password(request, data["current_password"], data["new_password"])
        except (AccountInvalid, LimitExceeded) as err:
            status = _refused(form, err)
        else:
            messages.success(
                request, "Your password is changed. This browser stays signed in; any other is signed out."
            )
            return redirect(_next_url(request))
    return render(request, "schedlab/password_change.html", {"form": form, NEXT: _next_url(request)}, status=status)


# Each kind an account holds, in the words the delete page and its message count it with.
HOLDING_WORDS = (
    ("scenarios", "scenario"),
    ("versions", "saved version"),
    ("runs", "run"),
    ("questions", "capacity question"),
    ("upgrades", "upgrade comparison"),
    ("fleet_checks", "fleet check"),
    ("share_links", "share link"),
)


def _counted(held: Holdings) -> list[dict[str, str]]:
    lines = []
    for kind, word in HOLDING_WORDS:
        count = getattr(held, kind)
        lines.append({"kind": kind, "text": f"{count} {word}{'' if count == 1 else 's'}"})
    return lines


@sensitive_post_parameters()
@never_cache
def delete_account(request: HttpRequest) -> HttpResponse:
    """The counts of what goes and a password to confirm; in single-user mode only why there is nothing
    to delete here (403 to a POST)."""
    template = "schedlab/account_delete.html"
    if settings.SCHEDLAB_SINGLE_USER:
        return render(request, template, {"form": None}, status=403 if request.method == "POST" else 200)
    if not request.user.is_authenticated:
        return redirect_to_login(request.get_full_path())
    form = DeleteAccountForm(request.POST if request.method == "POST" else None)
    status = 400 if form.is_bound else 200
    if form.is_valid():
        name = request.user.get_username()
        try:
            deleted = accounts.delete_account(request, form.cleaned_data["password"])
        except (AccountInvalid, LimitExceeded) as err:
            status = _refused(form, err)
        else:
            what = ", ".join(line["text"] for line in _counted(deleted))
            messages.info(request, f"The account {name} is deleted, with {what}. You are signed out.")
            return redirect("home")
    holdings = _counted(accounts.holdings(request))
    return render(request, template, {"form": form, "holdings": holdings}, status=status)


urlpatterns = [
    path("accounts/signup/", sign_up, name="sign-up"),
    path("accounts/login/", sign_in, name="sign-in"),
    path("accounts/logout/", sign_out, name="sign-out"),
    path("accounts/password/", change_password, name="change-password"),
    path("accounts/delete/", delete_account, name="delete-account"),
]
