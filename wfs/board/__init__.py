"""`wfs board`: the plan as a live page in the browser, or as columns in the terminal.

- data.py: what the board shows (the board data, a task's detail, the session's stamp),
  from the same library functions the CLI reads;
- server.py: the local server on 127.0.0.1 (token, Host check, server-sent events, the
  few actions), and the page rendered from templates/board.html.j2 with static/ inlined;
- tui.py: the same columns and running tasks in a terminal (`wfs board --tui`).
"""
