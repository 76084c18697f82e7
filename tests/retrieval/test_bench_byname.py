"""The accounts as apps store them (bench.byname): by name, and as mem0's SDK writes them."""

from bench.byname import by_name, told_as_mem0

ACCOUNT = {
    "memories": [
        {"content": "User's name is Maya Brennan"},
        {"content": "User lives in Bristol"},
        {"content": "The user prefers oat milk in coffee"},
        {"content": "Jonas teaches physics; User met him in 2015"},
    ],
    "questions": [{"question": "Where do I live?", "answers": ["User lives in Bristol"]}],
    "nonsense_questions": ["What's my horse called?"],
}


def test_mem0s_style_drops_the_subject_where_it_is_the_person():
    assert told_as_mem0("User lives in Bristol", "Maya", "Maya Brennan") == "Lives in Bristol"
    assert told_as_mem0("User's name is Maya Brennan", "Maya", "Maya Brennan") == (
        "Name is Maya Brennan"
    )
    assert told_as_mem0("The user prefers tea", "Maya", "Maya Brennan") == "Prefers tea"
    # Inside a memory the person is named; a memory about someone else is kept.
    assert (
        told_as_mem0("Jonas met User in 2015", "Maya", "Maya Brennan") == "Jonas met Maya in 2015"
    )


def test_an_account_in_mem0s_style_keeps_its_questions_and_answers():
    data = by_name(ACCOUNT, mem0=True)
    contents = [m["content"] for m in data["memories"]]
    assert contents == [
        "Name is Maya Brennan",
        "Lives in Bristol",
        "Prefers oat milk in coffee",
        "Jonas teaches physics; Maya met him in 2015",
    ]
    assert data["questions"][0]["answers"] == ["Lives in Bristol"]
    assert data["named_questions"][0]["question"] == "Where does Maya live?"
    assert data["named_nonsense"] == ["What's Maya's horse called?"]
