"""Chat templates: the tokenizer's own, a template file, or ``plain`` for base models."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Callable

PLAIN_TEMPLATE = (
    "{% for m in messages %}"
    "{% if m['role'] == 'system' %}{{ m['content'] }}\n\n"
    "{% elif m['role'] == 'user' %}Question: {{ m['content'] }}\n"
    "{% else %}Answer: {{ m['content'] }}\n{% endif %}"
    "{% endfor %}Answer:"
)


def template_text(spec, tokenizer=None) -> str:
    """The Jinja chat template in force for ``spec`` (recorded in provenance)."""
    if spec.chat_template == "plain":
        return PLAIN_TEMPLATE
    if spec.chat_template:
        return Path(spec.chat_template).read_text()
    if tokenizer is not None and getattr(tokenizer, "chat_template", None):
        return tokenizer.chat_template
    return PLAIN_TEMPLATE


def template_hash(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def render_chat(spec, messages: list[dict], tokenizer_loader: Callable[[], object]) -> str:
    """Apply the chat template once; the rendered text is what gets cached and scored."""
    if spec.chat_template == "plain":
        import jinja2

        return jinja2.Template(PLAIN_TEMPLATE).render(messages=messages)
    tok = tokenizer_loader()
    kwargs = {}
    if spec.chat_template:
        kwargs["chat_template"] = Path(spec.chat_template).read_text()
    elif not getattr(tok, "chat_template", None):
        import jinja2

        return jinja2.Template(PLAIN_TEMPLATE).render(messages=messages)
    if getattr(spec, "reasons", False) and getattr(spec, "reasoning_effort", None) is not None:
        # a reasoning model's template takes its effort (gpt-oss: "Reasoning: <effort>" in the system message)
        kwargs["reasoning_effort"] = spec.reasoning_effort
    return tok.apply_chat_template(messages, tokenize=False, add_generation_prompt=True, **kwargs)
