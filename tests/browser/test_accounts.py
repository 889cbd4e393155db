"""Accounts in the browser: in production mode an anonymous visitor is told their scenarios are kept
only in this browser, signs up and keeps the scenario made before, signs out to an empty list and signs
in to find it again; a person changes their password, signs in with the new one and deletes their
account with what it holds; the embedded server says it is single-user instead."""

import re

from playwright.sync_api import expect

from tests.browser.helpers import api_post

NAME = "made before signing up"
PERSON = "ada"
PASSWORD = "correct horse battery"


def _scenario_links(page):
    expect(page.locator("#scenarios-table")).to_be_visible()  # the list has loaded (the demos at least)
    return page.locator("#scenarios-table a.scenario-link", has_text=NAME)


def _fill_account_form(page, again: bool) -> None:
    page.fill("#id_username", PERSON)
    page.fill("#id_password", PASSWORD)
    if again:
        page.fill("#id_password_again", PASSWORD)
    page.locator("main form button[type=submit]").click()


def test_signing_up_keeps_what_was_made_before_and_signing_in_brings_it_back(production_page, snap):
    page = production_page
    page.goto(page.base_url + "/")
    notice = page.locator("#owner-notice")
    expect(notice).to_contain_text("Your scenarios are kept only in this browser")
    expect(page.locator("#account")).to_contain_text("Sign in")
    page.fill("#new-name", NAME)
    page.click("#new-scenario button[type=submit]")
    page.wait_for_url(re.compile(r"/scenarios/\d+/$"))
    editor_url = page.url
    expect(page.locator("#owner-notice")).to_contain_text("kept only in this browser")
    snap(page, "accounts-anonymous-editor")

    page.click("#owner-notice a:text('Sign up')")
    expect(page.locator("h1")).to_have_text("Sign up")
    _fill_account_form(page, again=True)
    page.wait_for_url(editor_url)  # back where it was asked from
    expect(page.locator(".messages")).to_contain_text("Welcome, ada: you are signed in. The 1 scenario(s)")
    expect(page.locator("#account-name")).to_have_text(PERSON)
    expect(page.locator("#owner-notice")).to_have_count(0)  # the editor says nothing more once signed in

    page.goto(page.base_url + "/")
    expect(_scenario_links(page)).to_have_count(1)
    expect(page.locator("#owner-notice")).to_contain_text("ada’s scenarios")
    snap(page, "accounts-signed-in-list")

    page.click("#sign-out")
    page.wait_for_url(page.base_url + "/")
    expect(page.locator(".messages")).to_contain_text("Signed out")
    expect(page.locator("#owner-notice")).to_contain_text("kept only in this browser")
    expect(_scenario_links(page)).to_have_count(0)

    page.click("#sign-in-link")
    expect(page.locator("h1")).to_have_text("Sign in")
    _fill_account_form(page, again=False)
    page.wait_for_url(page.base_url + "/")
    expect(_scenario_links(page)).to_have_count(1)
    expect(page.locator("#account-name")).to_have_text(PERSON)


def test_a_wrong_password_is_said_in_words_on_the_page(production_page):
    page = production_page
    page.goto(page.base_url + "/accounts/login/")
    page.fill("#id_username", "nobody-here")
    page.fill("#id_password", "not a password of anyone")
    page.locator("main form button[type=submit]").click()
    expect(page.locator(".form-errors")).to_have_text("That name and password do not match an account.")


def test_the_embedded_server_is_single_user_and_says_so_instead_of_offering_accounts(embedded_page, browser):
    """Another browser on the machine (its own cookies) sees and may delete what the first one made."""
    page = embedded_page
    made = api_post(page, "/api/scenarios", {"name": "made in another browser", "text": ""})
    other = browser.new_context(viewport=page.viewport_size)
    try:
        visitor = other.new_page()
        visitor.goto(page.base_url + "/")
        expect(visitor.locator("#account")).to_have_text("single-user mode (this machine)")
        expect(visitor.locator("#owner-notice")).to_contain_text("Single-user mode (this machine)")
        expect(visitor.locator("#sign-in-link")).to_have_count(0)
        row = visitor.locator(f"#scenarios-table tr[data-id='{made['id']}']")
        expect(row).to_contain_text("made in another browser")
        expect(row.locator("button.danger")).to_have_text("Delete")  # theirs too
        visitor.goto(page.base_url + "/accounts/signup/")
        expect(visitor.locator("#not-needed")).to_contain_text("an account is not needed")
    finally:
        other.close()


def _sign_in(page, person: str, password: str) -> None:
    page.click("#sign-in-link")
    expect(page.locator("h1")).to_have_text("Sign in")
    page.fill("#id_username", person)
    page.fill("#id_password", password)
    page.locator("main form button[type=submit]").click()


def test_a_person_changes_the_password_signs_in_with_it_and_deletes_the_account(production_page):
    page = production_page
    person, new_password = "grace", "a new horse staple"
    page.goto(page.base_url + "/accounts/signup/")
    page.fill("#id_username", person)
    page.fill("#id_password", PASSWORD)
    page.fill("#id_password_again", PASSWORD)
    page.locator("main form button[type=submit]").click()
    expect(page.locator("#account-name")).to_have_text(person)
    made = api_post(page, "/api/scenarios", {"name": NAME, "text": ""})

    page.click("#change-password-link")
    expect(page.locator("h1")).to_have_text("Change your password")
    page.fill("#id_current_password", PASSWORD)
    page.fill("#id_new_password", new_password)
    page.fill("#id_new_password_again", new_password)
    page.locator("main form button[type=submit]").click()
    expect(page.locator(".messages")).to_contain_text("Your password is changed")
    expect(page.locator("#account-name")).to_have_text(person)  # still signed in

    page.click("#sign-out")
    expect(page.locator(".messages")).to_contain_text("Signed out")
    _sign_in(page, person, PASSWORD)
    expect(page.locator(".form-errors")).to_have_text("That name and password do not match an account.")
    page.goto(page.base_url + "/")
    _sign_in(page, person, new_password)
    expect(page.locator("#account-name")).to_have_text(person)
    expect(_scenario_links(page)).to_have_count(1)

    page.click("#delete-account-link")
    expect(page.locator("h1")).to_have_text("Delete your account")
    expect(page.locator("#holdings li[data-kind=scenarios]")).to_have_text("1 scenario")
    page.fill("#id_password", new_password)
    page.locator("main form button[type=submit]").click()
    expect(page.locator(".messages")).to_contain_text(f"The account {person} is deleted, with 1 scenario")
    expect(page.locator("#sign-in-link")).to_be_visible()
    expect(_scenario_links(page)).to_have_count(0)
    expect(page.locator(f"#scenarios-table tr[data-id='{made['id']}']")).to_have_count(0)
    _sign_in(page, person, new_password)
    expect(page.locator(".form-errors")).to_have_text("That name and password do not match an account.")
