"""Judge prompts for ADK's LLM-judged metrics, written for this project.

Each asks for the same judgement and the same answer format ADK's prompt asks for (spec 3.5-3.11), so the
answers parse the same way; the wording is our own. Slots are ``{{name}}``, filled in one pass, so text from
an agent or an eval file can never be read as a slot.
"""

from __future__ import annotations

import re

_SLOT = re.compile(r"\{\{(\w+)\}\}")


def fill(template: str, **values: str) -> str:
    missing = set(_SLOT.findall(template)) - set(values)
    if missing:
        raise KeyError(f"prompt slots without a value: {', '.join(sorted(missing))}")
    return _SLOT.sub(lambda match: values[match.group(1)], template)


FINAL_RESPONSE_MATCH = """\
You grade the correctness of an AI agent's answer. A person wrote a reference answer to the same request;
decide whether the agent's answer is correct when compared with it.

Guidelines:
- Treat the reference answer as the truth. For arithmetic or values read from tables, trust its numbers.
- Differences in form do not matter: abbreviations versus full names, a list versus running prose, number
  formatting (1,000 or 1000), rounding that follows the usual convention for that kind of quantity, and extra
  information that does not contradict the reference.
- Check units. A value whose unit is wrong or missing in a way that changes its meaning is incorrect.
- The answer is invalid if it leaves out, changes or contradicts what the request asks for and the reference
  gives.

Answer with a JSON object and nothing else:
{
  "reasoning": "<one or two sentences>",
  "is_the_agent_response_valid": "valid" or "invalid"
}

== Request ==
{{prompt}}

== Reference answer ==
{{golden_response}}

== Agent's answer ==
{{response}}
"""

_PROPERTY_RULES = """\
For every property decide "yes" when the property holds, or when it does not apply to this conversation, and
"no" otherwise. Judge each property on its own."""

RUBRIC_FINAL_RESPONSE = (
    """\
You review the final answer an AI agent gave to a user, one property at a time.

First collect the facts you may rely on. Only these count as evidence: what the user wrote, the outputs of
tool calls that were made correctly (right tool, sensible arguments), and the grounding metadata. Then check
the final answer against each property, using that evidence: an answer that states something the evidence
does not back cannot satisfy a property that asks for correctness.

"""
    + _PROPERTY_RULES
    + """

For each property, write exactly these lines, in this order, and nothing between the blocks:
ID: <the id shown as [id: ...] before the property, copied exactly>
Property: <the property text, copied exactly, without the id tag>
Evidence: <the facts from the evidence that matter for this property>
Rationale: <why the answer does or does not meet the property>
Verdict: yes or no

== Instructions the agent was given ==
{{developer_instructions}}

== Tools available to the agent ==
{{tool_declarations}}

== User's request ==
{{user_input}}

== Steps the agent took (tool calls and their responses) ==
{{response_steps}}

== Grounding metadata ==
{{grounding_metadata}}

== Agent's final answer ==
{{final_response}}

== Properties ==
{{rubrics}}
"""
)

RUBRIC_TOOL_USE = (
    """\
You review how an AI agent used its tools while serving one user request, one property at a time. Only the
tool calls and their responses matter here, not the wording of the agent's answer.

"""
    + _PROPERTY_RULES
    + """

For each property, reason in five numbered steps and then give the verdict, writing exactly these lines:
STEP 1: <the property text, copied exactly, without the id tag>
STEP 2: <what you need to check to decide this property precisely>
STEP 3: <those checks, done one by one against the tool calls below>
STEP 4: <a short review of your findings against the property>
STEP 5: <yes or no>
ID: <the id shown as [id: ...] before the property, copied exactly>
Property: <the property text again, without the id tag>
Rationale: <a one-sentence justification>
Verdict: yes or no

== Tools available to the agent ==
{{tool_declarations}}

== User's request ==
{{user_input}}

== Tool calls and responses ==
{{tool_usage}}

== Properties ==
{{rubrics}}
"""
)

RUBRIC_TRAJECTORY = (
    """\
You review a whole conversation between a user and an AI agent system, judging the path the agents took
across all turns: their replies, the tools they called and how they used the results.

"""
    + _PROPERTY_RULES
    + """

For each property, write exactly these lines, in this order:
ID: <the property's "id" value, copied exactly>
Property: <the property's "property" text, copied exactly>
Rationale: <why the conversation does or does not meet the property, citing turns>
Verdict: yes or no

== Agent instructions ==
{{agent_instructions}}

== Agent tools ==
{{agent_tool_definitions}}

== Conversation ==
{{user_agent_dialogue}}

== Properties (JSON) ==
{{properties}}
"""
)

SEGMENTER = """\
Split the text below into its individual sentences so each can be fact-checked on its own. Keep the words
exactly as written; a list item, a heading or a line of a table counts as its own sentence. Do not add,
drop, merge or reword anything.

Output only the sentences, each wrapped in tags, one per line:
<sentence>first sentence</sentence>
<sentence>second sentence</sentence>

== Text ==
{{response}}
"""

VALIDATOR = """\
You check, sentence by sentence, whether what an AI agent said is backed by the context it had. The context
holds the agent's instructions, the user's prompt, the tool definitions, grounding metadata, and what
happened earlier in the turn (agent messages, tool calls and tool outputs).

Give each sentence one label:
- supported: the context states or directly implies it.
- unsupported: the context does not back it up.
- contradictory: the context says otherwise.
- disputed: parts of the context back it and other parts contradict it.
- not_applicable: it makes no factual claim (a greeting, a question, an offer of help).

For every sentence, in order, write exactly this block:
sentence: <the sentence>
label: <one of the five labels>
rationale: <why>
supporting_excerpt: <a quote from the context that backs the sentence, or null>
contradicting_excerpt: <a quote from the context that contradicts it, or null>

== Context ==
{{context}}

== Sentences ==
{{sentences}}
"""

USER_SIMULATOR_TURN = """\
A language model plays the user in a test conversation with an AI agent. It was given a conversation plan
and must follow it: say what the plan says the user wants, answer the agent's questions as the plan allows,
not invent goals or facts beyond it, and end the conversation by sending exactly {{stop_signal}} once the
plan is complete (and not before). Decide whether its latest message is a valid next user message.

== Conversation plan ==
{{conversation_plan}}

== Conversation so far ==
{{conversation_history}}
{{persona}}
== Latest simulated user message ==
{{generated_user_response}}

Answer with a JSON object and nothing else:
{
  "reasoning": "<one or two sentences>",
  "is_valid": true or false
}
"""

PERSONA = """
== The user's persona ==
{{description}}
The message is also invalid if it shows any of these violations of the persona:
{{violations}}
"""
