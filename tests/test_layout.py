from __future__ import annotations

import pytest

from wfs.errors import WfsError
from wfs.layout import (
    check_session_id,
    check_topic,
    normalize_session_id,
    parse_task_id,
    session_id_candidates,
    slugify,
    task_sort_key,
)


@pytest.mark.parametrize(
    ("topic", "slug"),
    [
        ("User Auth System", "user-auth-system"),
        ("  Fix: CI/CD -- pipeline!! ", "fix-ci-cd-pipeline"),
        ("Café Login", "cafe-login"),
        ("OAuth2_Integration", "oauth2-integration"),
        ("日本語 plan", "plan"),
    ],
)
def test_slugify_lowercases_and_hyphenates(topic: str, slug: str) -> None:
    assert slugify(topic) == slug


@pytest.mark.parametrize("topic", ["", "!!!", "日本語", "   "])
def test_topic_without_letters_or_digits_is_refused(topic: str) -> None:
    with pytest.raises(WfsError, match="has no letters or digits"):
        check_topic(topic)


@pytest.mark.parametrize("topic", ["../escape", "a/../../b", "/etc/passwd", "x\0y"])
def test_path_like_topics_are_refused(topic: str) -> None:
    with pytest.raises(WfsError, match="invalid topic"):
        check_topic(topic)


def test_session_ids_never_exceed_50_characters() -> None:
    slug = slugify("a very long topic " * 10)
    candidates = session_id_candidates(slug)
    assert candidates[0] == "WFS-" + slug[:46].rstrip("-")
    assert candidates[1].endswith("-002") and candidates[2].endswith("-003")
    assert all(len(c) <= 50 for c in candidates)
    assert len(set(candidates)) == len(candidates)


def test_session_id_accepts_with_or_without_prefix() -> None:
    assert normalize_session_id("user-auth") == "WFS-user-auth"
    assert normalize_session_id("WFS-user-auth") == "WFS-user-auth"


@pytest.mark.parametrize(
    ("value", "problem"),
    [
        ("../WFS-x", "path separator"),
        ("WFS-a/b", "path separator"),
        ("/tmp/WFS-x", "path separator"),
        ("..", "must not start with '.'"),
        (".active-WFS-x", "must not start with '.'"),
        ("WFS-x\0", "NUL"),
        ("", "empty"),
    ],
)
def test_hostile_session_ids_are_refused(value: str, problem: str) -> None:
    with pytest.raises(WfsError, match=problem):
        normalize_session_id(value)


def test_session_id_needs_the_prefix() -> None:
    with pytest.raises(WfsError, match="WFS-<slug>"):
        check_session_id("user-auth")


def test_task_ids_parse_and_sort_numerically() -> None:
    assert parse_task_id("IMPL-1.2") == (1, 2)
    assert parse_task_id("IMPL-001") == (1, None)
    assert parse_task_id("IMPL-1.2.3") is None
    assert parse_task_id("IMPL-N") is None
    ids = ["IMPL-10", "IMPL-2.10", "IMPL-2", "IMPL-2.9", "IMPL-1"]
    assert sorted(ids, key=task_sort_key) == [
        "IMPL-1",
        "IMPL-2",
        "IMPL-2.9",
        "IMPL-2.10",
        "IMPL-10",
    ]
