"""A multi-agent ADK helpdesk that runs fully offline: a coordinator hands each request to a specialist.

The coordinator's scripted model transfers to ``billing_agent`` or ``tech_agent`` (ADK's own
``transfer_to_agent`` tool) by keywords; each specialist calls its tool with structured arguments and answers
from the result, using the customer's plan from the session state. It covers what the weather example does not:
sub-agents, ``transfer_to_agent`` in the trajectory, nested tool arguments, and session state.
"""

from __future__ import annotations

import re
from collections.abc import AsyncGenerator
from typing import Any

from google.adk.agents import LlmAgent
from google.adk.agents.readonly_context import ReadonlyContext
from google.adk.models.base_llm import BaseLlm
from google.adk.models.llm_request import LlmRequest
from google.adk.models.llm_response import LlmResponse
from google.adk.tools.tool_context import ToolContext
from google.genai import types

INVOICES = {"INV-1001": {"amount": 42.5, "status": "paid"}, "INV-1002": {"amount": 99.0, "status": "overdue"}}
SERVICES = {"email": "operational", "vpn": "degraded", "wiki": "operational"}


def lookup_invoice(invoice_id: str, fields: list[str], tool_context: ToolContext) -> dict[str, Any]:
    """Looks up an invoice.

    Args:
        invoice_id: The invoice number, e.g. "INV-1001".
        fields: Which fields to return, e.g. ["amount", "status"].
    """
    invoice = INVOICES.get(invoice_id.upper())
    if invoice is None:
        return {"found": False, "invoice_id": invoice_id}
    plan = tool_context.state.get("plan", "basic")
    return {"found": True, "invoice_id": invoice_id, "plan": plan, **{f: invoice[f] for f in fields if f in invoice}}


def check_service(service: str, options: dict[str, Any]) -> dict[str, Any]:
    """Checks the status of an internal service.

    Args:
        service: The service name, e.g. "vpn".
        options: Check options, e.g. {"region": "eu", "verbose": false}.
    """
    status = SERVICES.get(service.lower(), "unknown")
    return {"service": service, "status": status, "region": options.get("region", "global")}


def _last_text(request: LlmRequest) -> str:
    """The customer's latest message (ADK shows other agents' turns to a sub-agent as "For context:" text)."""
    for content in reversed(request.contents):
        texts = [part.text for part in content.parts or [] if part.text]
        if content.role == "user" and texts and not texts[0].startswith("For context:"):
            return " ".join(texts)
    return ""


def _topic(text: str) -> str | None:
    if any(word in text for word in ("invoice", "bill", "charge")):
        return "billing_agent"
    if any(word in text for word in ("vpn", "email", "wiki", "down", "slow")):
        return "tech_agent"
    return None


def _transfer(agent_name: str) -> list[types.Part]:
    return [types.Part(function_call=types.FunctionCall(name="transfer_to_agent", args={"agent_name": agent_name}))]


def _function_responses(request: LlmRequest) -> list[types.FunctionResponse]:
    last = request.contents[-1] if request.contents else None
    return [part.function_response for part in (last.parts if last else None) or [] if part.function_response]


def _usage(request: LlmRequest, parts: list[types.Part]) -> types.GenerateContentResponseUsageMetadata:
    prompt = 15 + sum(len((part.text or "").split()) for content in request.contents for part in content.parts or [])
    output = sum(len((part.text or "").split()) + (6 if part.function_call else 0) for part in parts)
    return types.GenerateContentResponseUsageMetadata(
        prompt_token_count=prompt, candidates_token_count=output, total_token_count=prompt + output
    )


class ScriptedHelpdeskModel(BaseLlm):
    """One scripted model for all three agents; it knows which agent calls it from the request's tools."""

    async def generate_content_async(
        self, llm_request: LlmRequest, stream: bool = False
    ) -> AsyncGenerator[LlmResponse, None]:
        tools = set(llm_request.tools_dict)
        text = _last_text(llm_request).lower()
        responses = _function_responses(llm_request)
        me = "billing_agent" if "lookup_invoice" in tools else "tech_agent" if "check_service" in tools else "helpdesk"
        wanted = _topic(text) or "helpdesk"
        if responses and responses[0].name != "transfer_to_agent":
            parts = self._billing(text, responses) if me == "billing_agent" else self._tech(text, responses)
        elif wanted != me:
            parts = _transfer(wanted)
        elif me == "billing_agent":
            parts = self._billing(text, [])
        elif me == "tech_agent":
            parts = self._tech(text, [])
        else:
            parts = [types.Part(text="I can help with invoices and with the status of our services.")]
        yield LlmResponse(
            content=types.Content(role="model", parts=parts),
            model_version="scripted-helpdesk-1",
            usage_metadata=_usage(llm_request, parts),
        )

    @staticmethod
    def _billing(text: str, responses: list[types.FunctionResponse]) -> list[types.Part]:
        if responses:
            result = responses[0].response or {}
            if not result.get("found"):
                return [types.Part(text=f"I could not find invoice {result.get('invoice_id')}.")]
            return [
                types.Part(
                    text=f"Invoice {result['invoice_id']} is {result.get('status')} "
                    f"({result.get('amount')} EUR, {result.get('plan')} plan)."
                )
            ]
        match = re.search(r"inv-\d+", text)
        if not match:
            return [types.Part(text="Which invoice number is it?")]
        args = {"invoice_id": match.group(0).upper(), "fields": ["amount", "status"]}
        return [types.Part(function_call=types.FunctionCall(name="lookup_invoice", args=args))]

    @staticmethod
    def _tech(text: str, responses: list[types.FunctionResponse]) -> list[types.Part]:
        if responses:
            result = responses[0].response or {}
            return [types.Part(text=f"The {result['service']} service is {result['status']} ({result['region']}).")]
        service = next((name for name in SERVICES if name in text), None)
        if service is None:
            return [types.Part(text="Which service is it?")]
        region = "eu" if "europe" in text or " eu" in text else "global"
        args = {"service": service, "options": {"region": region, "verbose": False}}
        return [types.Part(function_call=types.FunctionCall(name="check_service", args=args))]


def _billing_instruction(context: ReadonlyContext) -> str:
    return f"You handle invoices. The customer is on the {context.state.get('plan', 'basic')} plan."


MODEL = ScriptedHelpdeskModel(model="scripted-helpdesk")

billing_agent = LlmAgent(
    name="billing_agent",
    model=MODEL,
    instruction=_billing_instruction,
    description="Answers questions about invoices.",
    tools=[lookup_invoice],
)

tech_agent = LlmAgent(
    name="tech_agent",
    model=MODEL,
    instruction="You report the status of internal services.",
    description="Answers questions about service outages.",
    tools=[check_service],
)

root_agent = LlmAgent(
    name="helpdesk",
    model=MODEL,
    instruction="Hand invoice questions to billing_agent and service questions to tech_agent.",
    description="The helpdesk's front door.",
    sub_agents=[billing_agent, tech_agent],
)
