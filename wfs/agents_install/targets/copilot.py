"""GitHub Copilot CLI: commands as skills in .github/skills, agents in .github/agents, and
a hook; `wfs` is allowed on its command line (the install prints how)."""

from __future__ import annotations

from wfs.agents_install.base import MARKDOWN_AGENT, Extra, Form, Target, markdown

TARGET = Target(
    "copilot",
    "GitHub Copilot CLI",
    # Skills: Copilot CLI and VS Code load them from .github/skills (VS Code no
    # longer loads prompt files). The model invokes one with its `skill` tool;
    # allowed-tools grants the `wfs` calls in an interactive session only.
    Form(
        ".github/skills/wfs-{name}/SKILL.md",
        markdown,
        (
            ("name", "wfs-{name}"),
            ("description", "@description"),
            ("allowed-tools", "shell(wfs:*)"),
        ),
    ),
    Form(".github/agents/{name}.agent.md", markdown, MARKDOWN_AGENT),
    "ARGS",
    False,
    "/wfs-",
    "copilot",
    extras=(Extra(".github/hooks/wfs.json", "copilot-hook.json"),),
    blocks=(Extra(".github/copilot-instructions.md", "editor-md.md"),),
    setup=(
        "Copilot CLI: no project setting can allow `wfs`; add "
        "--allow-tool 'shell(wfs:*)' to headless runs, e.g. copilot -p "
        "'/wfs-execute --all' --allow-tool 'shell(wfs:*)' --allow-tool write "
        "(interactive sessions allow it once a wfs skill is loaded)"
    ),
)
