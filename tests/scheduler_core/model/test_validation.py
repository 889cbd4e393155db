"""model/validation.py: the API server's name and label syntax checks
(k8s.io/apimachinery/pkg/util/validation: IsDNS1123Label, IsQualifiedName, IsValidLabelValue, ...)."""

from __future__ import annotations

from scheduler_core.model.validation import (
    DNS1035_LABEL_MSG,
    DNS1123_LABEL_MSG,
    LABEL_VALUE_MSG,
    QUALIFIED_NAME_MSG,
    is_dns1035_label,
    is_dns1123_label,
    is_dns1123_subdomain,
    is_integer_string,
    is_ip,
    is_label_value,
    is_qualified_name,
)


def test_dns_names():
    assert is_dns1123_label("web-1") == []
    assert is_dns1123_label("Web") == [DNS1123_LABEL_MSG]
    assert is_dns1123_label("a" * 64) == ["must be no more than 63 characters"]
    assert is_dns1123_subdomain("a.b-c.d") == []
    assert is_dns1035_label("1web") == [DNS1035_LABEL_MSG]


def test_qualified_names_and_label_values():
    assert is_qualified_name("example.com/Name_1") == []
    assert is_qualified_name("/x") == ["prefix part must be non-empty"]
    assert is_qualified_name("Example.com/x")[0].startswith("prefix part a lowercase RFC 1123 subdomain")
    assert is_qualified_name("x/") == ["name part must be non-empty"]
    assert is_qualified_name("-x") == [QUALIFIED_NAME_MSG]
    assert is_label_value("") == [] and is_label_value("v1.2") == []
    assert is_label_value("bad value") == [LABEL_VALUE_MSG]


def test_integer_strings_fit_in_int64_and_ips_parse():
    assert is_integer_string("-42") and is_integer_string("+7")
    assert not is_integer_string(str(2**63)) and not is_integer_string("4x") and not is_integer_string("-")
    assert is_ip("10.0.0.1") and is_ip("::1") and not is_ip("10.0.0.300")
