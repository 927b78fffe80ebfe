#!/usr/bin/env bash
# A stand-in for an AI agent: wfs sends the step brief (the Markdown prompt an agent
# CLI takes; JSON with WFS_AGENT_INPUT=json) on stdin and takes
# whatever this prints as the step's output.
brief=$(cat)
case "$brief" in
  *"Review the greeting"*) echo "Friendly and short: approved." ;;
  *) echo "Done." ;;
esac
