// The board of a wfs session. Layout: @dagrejs/dagre 3.1.3 (dagre.min.js, its npm release;
// MIT, dagre.LICENSE). Our own code otherwise, no framework.
//
// Safety: every text that comes from a file goes into the page through text nodes
// (textContent), never as HTML; the one exception is a task's summary_html, which the
// server renders safe (markdown-it, raw HTML off). Every href is one this script builds.
// Without a token (an exported file) the page makes no request at all.
"use strict";
(function () {
  const COLUMNS = ["pending", "ready", "active", "blocked", "completed"];
  // The states a card and a node say in words (the row's `state`), each with a sign.
  const STATES = {
    running: "\u25B6 running",
    stale: "\u25B6 running, its process gone",
    paused: "\u23F8 waiting",
  };
  const LEAF_STATUSES = ["pending", "active", "blocked", "completed"];
  const SVG = "http://www.w3.org/2000/svg";
  const NODE_W = 190;
  const NODE_H = 42;

  const config = JSON.parse(document.getElementById("wfs-config").textContent);
  let data = JSON.parse(document.getElementById("wfs-data").textContent);
  const token = config.token; // null: an exported file
  const actions = Boolean(config.actions && token);
  let openId = null; // the task whose detail is open
  let openDetail = null;
  let layoutKey = null;
  let layout = null;

  // ------------------------------------------------------------------ helpers

  // Control characters (and the bidirectional overrides) shown as visible symbols, so
  // that a title cannot hide text or reorder what is around it.
  function clean(text, keepLines) {
    if (text === null || text === undefined) return "";
    return String(text).replace(
      /[\u0000-\u001f\u007f\u202a-\u202e\u2066-\u2069]/g,
      function (c) {
        const code = c.charCodeAt(0);
        if (keepLines && (c === "\n" || c === "\t")) return c;
        if (code < 0x20) return String.fromCharCode(0x2400 + code);
        if (code === 0x7f) return "\u2421";
        return "<U+" + code.toString(16).toUpperCase() + ">";
      }
    );
  }

  // An element with attributes (ours) and children (nodes, or strings made text nodes).
  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    setAttrs(node, attrs);
    append(node, children);
    return node;
  }

  function svg(tag, attrs, ...children) {
    const node = document.createElementNS(SVG, tag);
    setAttrs(node, attrs);
    append(node, children);
    return node;
  }

  function setAttrs(node, attrs) {
    for (const [name, value] of Object.entries(attrs || {})) {
      if (value !== null && value !== undefined && value !== false) {
        node.setAttribute(name, String(value));
      }
    }
  }

  function append(node, children) {
    for (const child of children.flat()) {
      if (child === null || child === undefined || child === false) continue;
      node.appendChild(typeof child === "string" ? document.createTextNode(child) : child);
    }
  }

  // Replace node's children (replaceChildren would show a null as the text "null").
  function fill(node, children) {
    node.replaceChildren();
    append(node, children);
  }

  function shorten(text, max) {
    return text.length > max ? text.slice(0, max - 1) + "\u2026" : text;
  }

  function elapsed(since) {
    const start = Date.parse(since);
    if (Number.isNaN(start)) return "";
    let s = Math.max(0, Math.floor((Date.now() - start) / 1000));
    const h = Math.floor(s / 3600);
    const m = Math.floor((s % 3600) / 60);
    s = s % 60;
    const pad = (n) => String(n).padStart(2, "0");
    if (h) return h + "h " + pad(m) + "m";
    if (m) return m + "m " + pad(s) + "s";
    return s + "s";
  }

  // A link to this page for another session: the query string is all we build.
  function sessionHref(id) {
    const query = new URLSearchParams();
    if (token) query.set("token", token);
    query.set("session", id);
    return "?" + query.toString();
  }

  function api(path, params) {
    const query = new URLSearchParams(params);
    query.set("token", token);
    return fetch(path + "?" + query.toString(), {
      headers: { "X-WFS-Token": token },
      cache: "no-store",
    }).then(function (response) {
      if (!response.ok) throw new Error(path + ": HTTP " + response.status);
      return response.json();
    });
  }

  function say(text, ok) {
    const box = document.getElementById("message");
    box.textContent = clean(text);
    box.className = ok ? "ok" : "";
  }

  function tasksById() {
    const map = new Map();
    for (const task of data.tasks) map.set(task.id, task);
    return map;
  }

  // ----------------------------------------------------------------- header

  function drawHeader() {
    const session = data.session || {};
    document.title = "wfs board: " + clean(session.id) + (session.topic ? " \u2014 " + clean(session.topic) : "");
    document.getElementById("session-id").textContent = clean(session.id);
    document.getElementById("session-topic").textContent = clean(session.topic);
    document.getElementById("session-meta").textContent =
      [session.status, session.phase].filter(Boolean).map((x) => clean(x)).join(" \u00b7 ");

    const counts = data.counts || {};
    const total = data.tasks.length;
    const progress = document.getElementById("progress");
    progress.replaceChildren(
      ...COLUMNS.map((column) =>
        el("span", { class: "count", "data-column": column }, column, el("b", {}, String(counts[column] || 0)))
      ),
      el("span", { class: "bar", title: (counts.completed || 0) + " of " + total + " completed" },
        el("span", { style: "width:" + (total ? (100 * (counts.completed || 0)) / total : 0) + "%" })),
      el("span", { class: "count", "data-column": "total" }, "total", el("b", {}, String(total)))
    );

    const picker = document.getElementById("sessions");
    picker.replaceChildren(
      ...(data.sessions || []).map(function (s) {
        const label = clean(s.id) + (s.topic ? " \u2014 " + shorten(clean(s.topic), 40) : "") +
          " (" + (s.completed || 0) + "/" + (s.total || 0) + ")";
        const current = s.id === session.id;
        // An exported file holds one session: the others are named, not linked.
        const item = token
          ? el("a", { class: "session" + (current ? " current" : ""), href: sessionHref(s.id), "data-session": s.id }, label)
          : el("span", { class: "session" + (current ? " current" : ""), "data-session": s.id }, label);
        if (actions && !current) {
          const button = el("button", { class: "switch", "data-session": s.id, title: "make it the current session of the CLI" }, "switch");
          button.addEventListener("click", function (event) {
            event.preventDefault();
            act({ action: "switch", session: s.id }).then((ok) => ok && location.assign(sessionHref(s.id)));
          });
          return el("span", {}, item, button);
        }
        return item;
      }),
      // Maestro-Flow plans: the session made of one is a link; the others wait for
      // `wfs execute --all` (or `wfs import PATH`).
      ...(data.maestro || []).map(function (p) {
        const counted = p.error ? "cannot be read" : (p.completed || 0) + "/" + (p.tasks || 0);
        const label = clean(p.name) + " (Maestro-Flow, " + counted + ")";
        if (p.imported_as && token) {
          return el("a", { class: "session plan", href: sessionHref(p.imported_as), "data-plan": p.name }, label);
        }
        return el("span", { class: "session plan", "data-plan": p.name, title: "wfs execute --all runs it" }, label);
      })
    );
  }

  // ------------------------------------------------------------------ graph

  // The graph's shape: when only statuses change, the layout is kept.
  function shapeOf() {
    return JSON.stringify([data.tasks.map((t) => [t.id, t.parent, t.container]), data.edges]);
  }

  function computeLayout() {
    const byId = tasksById();
    const hasChildren = new Set();
    for (const t of data.tasks) if (t.parent && byId.has(t.parent)) hasChildren.add(t.parent);
    const g = new dagre.graphlib.Graph({ compound: true });
    g.setGraph({ rankdir: "LR", nodesep: 14, ranksep: 46, marginx: 16, marginy: 24 });
    g.setDefaultEdgeLabel(() => ({}));
    for (const t of data.tasks) {
      if (hasChildren.has(t.id)) g.setNode(t.id, { cluster: true });
      else g.setNode(t.id, { width: NODE_W, height: NODE_H });
    }
    for (const t of data.tasks) if (t.parent && byId.has(t.parent)) g.setParent(t.id, t.parent);
    // dagre lays out edges between leaves; an edge to or from a group box is drawn
    // straight, box to box.
    const laid = [];
    const straight = [];
    for (const [from, to] of data.edges || []) {
      if (!byId.has(from) || !byId.has(to) || from === to) continue;
      if (hasChildren.has(from) || hasChildren.has(to)) straight.push([from, to]);
      else {
        g.setEdge(from, to);
        laid.push([from, to]);
      }
    }
    dagre.layout(g);
    const boxes = new Map();
    for (const id of g.nodes()) {
      const n = g.node(id);
      boxes.set(id, { x: n.x, y: n.y, width: n.width, height: n.height, cluster: hasChildren.has(id) });
    }
    const paths = [];
    for (const [from, to] of laid) paths.push({ from, to, points: g.edge(from, to).points });
    for (const [from, to] of straight) {
      const a = boxes.get(from);
      const b = boxes.get(to);
      paths.push({ from, to, points: [border(a, b), border(b, a)] });
    }
    const size = g.graph();
    return { boxes, paths, width: size.width || 0, height: size.height || 0 };
  }

  // Where the line from the centre of box a to the centre of box b leaves a.
  function border(a, b) {
    const dx = b.x - a.x;
    const dy = b.y - a.y;
    if (!dx && !dy) return { x: a.x, y: a.y };
    const sx = dx ? a.width / 2 / Math.abs(dx) : Infinity;
    const sy = dy ? a.height / 2 / Math.abs(dy) : Infinity;
    const s = Math.min(sx, sy);
    return { x: a.x + dx * s, y: a.y + dy * s };
  }

  function drawGraph() {
    const key = shapeOf();
    if (key !== layoutKey) {
      layout = computeLayout();
      layoutKey = key;
    }
    const byId = tasksById();
    const critical = new Set();
    const chain = data.critical_path || [];
    for (let i = 1; i < chain.length; i++) critical.add(chain[i - 1] + "\u0000" + chain[i]);

    const root = svg("svg", {
      id: "graph-svg", width: Math.ceil(layout.width), height: Math.ceil(layout.height),
      viewBox: "0 0 " + Math.ceil(layout.width) + " " + Math.ceil(layout.height),
      role: "img", "aria-label": "dependency graph",
    });
    root.appendChild(svg("defs", {},
      svg("marker", { id: "arrow", viewBox: "0 0 10 10", refX: 9, refY: 5, markerWidth: 7, markerHeight: 7, orient: "auto-start-reverse" },
        svg("path", { d: "M0,0 L10,5 L0,10 z", fill: "#8a939e" })),
      svg("marker", { id: "arrow-critical", viewBox: "0 0 10 10", refX: 9, refY: 5, markerWidth: 6, markerHeight: 6, orient: "auto-start-reverse" },
        svg("path", { d: "M0,0 L10,5 L0,10 z", fill: "#111" }))));

    // Group boxes first (outermost first, so inner ones are drawn on top), then edges,
    // then the leaves.
    const depth = (id) => { let d = 0; for (let t = byId.get(id); t && t.parent && byId.has(t.parent); t = byId.get(t.parent)) d++; return d; };
    const clusters = data.tasks.filter((t) => layout.boxes.get(t.id) && layout.boxes.get(t.id).cluster)
      .sort((a, b) => depth(a.id) - depth(b.id));
    for (const t of clusters) {
      const b = layout.boxes.get(t.id);
      const x = b.x - b.width / 2;
      const y = b.y - b.height / 2 - 14;
      root.appendChild(nodeGroup(t, "node cluster", [
        svg("rect", { x, y, width: b.width, height: b.height + 14, rx: 8 }),
        svg("text", { x: x + 8, y: y + 13 }, clean(t.id) + "  " + shorten(clean(t.title), 40)),
      ]));
    }
    for (const p of layout.paths) {
      const isCritical = critical.has(p.from + "\u0000" + p.to);
      const d = p.points.map((pt, i) => (i ? "L" : "M") + pt.x.toFixed(1) + "," + pt.y.toFixed(1)).join(" ");
      root.appendChild(svg("path", {
        class: "edge" + (isCritical ? " critical" : ""), d,
        "data-from": p.from, "data-to": p.to,
        "marker-end": isCritical ? "url(#arrow-critical)" : "url(#arrow)",
      }));
    }
    for (const t of data.tasks) {
      const b = layout.boxes.get(t.id);
      if (!b || b.cluster) continue;
      const x = b.x - NODE_W / 2;
      const y = b.y - NODE_H / 2;
      root.appendChild(nodeGroup(t, "node", [
        svg("rect", { x, y, width: NODE_W, height: NODE_H, rx: 5 }),
        svg("text", { class: "nid", x: x + 8, y: y + 16 }, clean(t.id) + (STATES[t.state] ? "  " + STATES[t.state] : "")),
        svg("text", { x: x + 8, y: y + 32 }, shorten(clean(t.title), 30)),
      ]));
    }
    const box = document.getElementById("graph-box");
    const scroll = [box.scrollLeft, box.scrollTop];
    box.replaceChildren(root);
    [box.scrollLeft, box.scrollTop] = scroll;
  }

  function nodeGroup(task, cls, children) {
    const classes = [cls, "col-" + task.column];
    if (STATES[task.state]) classes.push("state-" + task.state);
    if (task.critical) classes.push("critical");
    if (task.id === openId) classes.push("selected");
    const group = svg("g", {
      class: classes.join(" "), "data-task-id": task.id, "data-column": task.column,
      "data-status": task.status, tabindex: 0,
    }, svg("title", {}, clean(task.id) + ": " + clean(task.title) + " (" + clean(task.status) + ")"), children);
    group.addEventListener("click", function (event) {
      event.stopPropagation();
      openTask(task.id);
    });
    return group;
  }

  // ------------------------------------------------------------------ board

  function drawBoard() {
    const board = document.getElementById("board");
    const lists = {};
    board.replaceChildren(
      ...COLUMNS.map(function (column) {
        lists[column] = el("ol", {});
        const count = data.tasks.filter((t) => t.column === column).length;
        return el("div", { class: "column", "data-column": column },
          el("h2", {}, el("span", {}, column), el("span", { class: "n" }, String(count))), lists[column]);
      })
    );
    for (const t of data.tasks) {
      const list = lists[t.column];
      if (list) list.appendChild(card(t));
    }
  }

  function card(t) {
    const classes = ["card"];
    if (STATES[t.state]) classes.push("state-" + t.state);
    if (t.critical) classes.push("critical");
    if (t.id === openId) classes.push("selected");
    const node = el("li", {
      class: classes.join(" "), "data-task-id": t.id, "data-column": t.column, "data-status": t.status,
    },
      el("span", { class: "tid" }, clean(t.id)),
      el("span", { class: "title" }, clean(t.title)),
      STATES[t.state] ? el("p", { class: "state", "data-state": t.state }, stateText(t)) : null,
      t.reason ? el("p", { class: "reason" }, clean(t.reason)) : null,
      t.waiting_on && t.waiting_on.length && t.column !== "completed"
        ? el("p", { class: "waiting" }, "waiting on " + t.waiting_on.map((x) => clean(x)).join(", ")) : null,
      t.continue ? el("code", { class: "continue", title: "the command that continues it" }, clean(t.continue)) : null,
      actions ? cardActions(t) : null
    );
    node.addEventListener("click", function (event) {
      if (event.target.closest("button, select, code")) return;
      openTask(t.id);
    });
    return node;
  }

  // What a task in the active column is doing: running (a process holds it, at a step)
  // or waiting (paused for an agent or a person; its reason says which).
  function stateText(t) {
    if (t.state === "running" || t.state === "stale") {
      const step = t.claim && t.claim.step ? " \u00b7 " + clean(t.claim.step) : "";
      return STATES[t.state] + step;
    }
    return STATES[t.state];
  }

  function cardActions(t) {
    const box = el("div", { class: "actions" });
    const stuck = t.column === "blocked" || (t.column === "active" && t.reason);
    if (stuck && !t.container) {
      for (const [name, label] of [["resume", "resume"], ["skip", "skip"]]) {
        const button = el("button", { class: "action-" + name, "data-task-id": t.id }, label);
        button.addEventListener("click", () => act({ action: name, session: data.session.id, task: t.id }));
        box.appendChild(button);
      }
    }
    if (!t.container) {
      const select = el("select", { class: "status-select", "data-task-id": t.id, "aria-label": "status of " + t.id });
      // A ready task is pending; another tool's word (in_progress, failed, skipped)
      // shows as the status it means, which is its column's.
      const current = LEAF_STATUSES.includes(t.status) ? t.status : t.column === "ready" ? "pending" : t.column;
      for (const status of LEAF_STATUSES) {
        select.appendChild(el("option", { value: status, selected: status === current }, status));
      }
      select.addEventListener("change", () =>
        act({ action: "status", session: data.session.id, task: t.id, status: select.value }));
      box.appendChild(select);
    }
    return box.childNodes.length ? box : null;
  }

  // ---------------------------------------------------------------- running

  function drawRunning() {
    const body = document.getElementById("running-rows");
    const rows = data.tasks.filter((t) => t.claim);
    if (!rows.length) {
      body.replaceChildren(el("tr", { class: "none" }, el("td", { colspan: 6 }, "nothing is running")));
      return;
    }
    body.replaceChildren(
      ...rows.map(function (t) {
        const c = t.claim;
        const row = el("tr", { class: "running" + (c.state === "stale" ? " stale" : ""), "data-task-id": t.id },
          el("td", {}, el("a", { href: "#", class: "open" }, clean(t.id))),
          el("td", {}, shorten(clean(t.title), 60)),
          el("td", { class: "holder" }, clean(c.owner) + (c.remote ? " (remote)" : " (local)")),
          el("td", { class: "where" }, clean(c.where)),
          el("td", { class: "step" }, clean(c.step || "")),
          el("td", { class: "elapsed", "data-since": c.since }, elapsed(c.since) + (c.state === "stale" ? " (stale)" : ""))
        );
        row.querySelector("a.open").addEventListener("click", function (event) {
          event.preventDefault();
          openTask(t.id);
        });
        return row;
      })
    );
  }

  function tick() {
    for (const cell of document.querySelectorAll("[data-since]")) {
      const stale = cell.textContent.endsWith("(stale)");
      cell.textContent = elapsed(cell.getAttribute("data-since")) + (stale ? " (stale)" : "");
    }
  }

  // ----------------------------------------------------------------- detail

  function openTask(id) {
    openId = id;
    openDetail = null;
    markSelected();
    drawDetail();
    if (token) refreshDetail();
  }

  function closeTask() {
    openId = null;
    openDetail = null;
    markSelected();
    document.getElementById("detail").hidden = true;
  }

  function markSelected() {
    for (const node of document.querySelectorAll(".selected")) node.classList.remove("selected");
    if (openId === null) return;
    for (const node of document.querySelectorAll("[data-task-id]")) {
      if (node.getAttribute("data-task-id") === openId && (node.matches(".card, g.node"))) node.classList.add("selected");
    }
  }

  function refreshDetail() {
    const id = openId;
    return api("/api/task", { session: data.session.id, id: id })
      .then(function (detail) {
        if (openId !== id) return;
        openDetail = detail;
        drawDetail();
      })
      .catch((error) => say(String(error.message || error)));
  }

  function drawDetail() {
    const panel = document.getElementById("detail");
    if (openId === null) return;
    const task = tasksById().get(openId);
    // The server's detail when there is one; an exported file may carry the details
    // in data.details; else what the board knows.
    const d = openDetail || (data.details && data.details[openId]) || task;
    if (!d) {
      closeTask();
      return;
    }
    const close = el("button", { class: "close", "aria-label": "close" }, "\u00d7");
    close.addEventListener("click", closeTask);
    const waiting = d.waiting_on && d.waiting_on.length && d.column !== "completed"
      ? el("p", { class: "why" }, "not ready: waiting on " + d.waiting_on.map((x) => clean(x)).join(", ")) : null;
    const parts = [
      close,
      el("h2", { class: "detail-title" }, clean(d.title)),
      el("p", { class: "status" }, el("b", { class: "tid" }, clean(d.id)), " \u00b7 ",
        el("span", { class: "detail-status" }, clean(d.status)), " \u00b7 column ",
        el("span", { class: "detail-column" }, clean(d.column))),
      waiting,
      d.reason ? el("p", { class: "reason" }, clean(d.reason)) : null,
      d.continue ? el("code", { class: "continue" }, clean(d.continue)) : null,
    ];
    if (d.steps) {
      parts.push(el("h3", {}, "Steps and checks"));
      parts.push(el("table", { class: "steps" },
        el("tr", {}, el("th", {}, "step"), el("th", {}, "kind"), el("th", {}, "result"), el("th", {}, "time")),
        d.steps.map((s) => el("tr", { class: "step", "data-key": s.key },
          el("td", {}, clean(s.name || s.key)),
          el("td", {}, clean(s.kind)),
          el("td", { class: "result result-" + String(s.status || "none").replace(/[^a-z_-]/gi, "") }, clean(s.status || "\u2014")),
          el("td", {}, s.elapsed === null || s.elapsed === undefined ? "" : Number(s.elapsed).toFixed(1) + " s")))));
    }
    if (d.acceptance && d.acceptance.length) {
      parts.push(el("h3", {}, "Acceptance"));
      parts.push(el("ul", { class: "acceptance" }, d.acceptance.map((a) => el("li", {}, clean(a)))));
    }
    if (d.summary_html) {
      parts.push(el("h3", {}, "Summary"));
      const summary = el("div", { class: "summary" });
      summary.innerHTML = d.summary_html; // rendered safe by the server (markdown-it, html off)
      parts.push(summary);
    }
    if (d.output) {
      parts.push(el("h3", {}, "Output"));
      parts.push(el("pre", { class: "output" }, clean(d.output, true)));
    }
    if (!openDetail && token) parts.push(el("p", { class: "loading" }, "loading\u2026"));
    fill(panel, parts);
    panel.hidden = false;
  }

  // ---------------------------------------------------------------- actions

  function act(body) {
    say("");
    return fetch("/api/action", {
      method: "POST",
      headers: { "Content-Type": "application/json", "X-WFS-Token": token },
      body: JSON.stringify(body),
    })
      .then((response) => response.json().catch(() => ({ ok: false, error: "HTTP " + response.status })))
      .then(function (answer) {
        if (answer.ok) say(body.action + " " + (body.task || body.session) + ": done", true);
        else say(body.action + " " + (body.task || body.session) + ": " + (answer.error || "refused"));
        refresh();
        return Boolean(answer.ok);
      })
      .catch(function (error) {
        say(String(error.message || error));
        return false;
      });
  }

  // ------------------------------------------------------------------- live

  function draw() {
    drawHeader();
    drawGraph();
    drawBoard();
    drawRunning();
    if (openId !== null) {
      if (tasksById().has(openId)) drawDetail();
      else closeTask();
    }
  }

  let fetching = null;
  let again = false;
  function refresh() {
    // One request at a time; a stamp that arrives meanwhile asks for one more.
    if (fetching) {
      again = true;
      return fetching;
    }
    fetching = api("/api/board", { session: data.session.id })
      .then(function (fresh) {
        if (fresh.stamp === data.stamp && openId === null) return;
        data = fresh;
        draw();
        if (openId !== null) return refreshDetail();
      })
      .catch((error) => say(String(error.message || error)))
      .finally(function () {
        fetching = null;
        if (again) {
          again = false;
          refresh();
        }
      });
    return fetching;
  }

  function follow() {
    const live = document.getElementById("live");
    const query = new URLSearchParams({ session: data.session.id, token: token });
    const events = new EventSource("/api/events?" + query.toString());
    events.addEventListener("stamp", function (event) {
      let stamp = event.data;
      try { stamp = JSON.parse(event.data); } catch (e) { /* a bare stamp */ }
      if (stamp !== data.stamp) refresh();
    });
    events.addEventListener("open", function () {
      live.textContent = "live";
      live.className = "on";
    });
    events.addEventListener("error", function () {
      live.textContent = "reconnecting";
      live.className = "off";
    });
  }

  // ------------------------------------------------------------------ start

  document.getElementById("legend").replaceChildren(
    ...COLUMNS.map((c) => el("span", { style: "--c: var(--" + c + ")" }, c)),
    el("span", { style: "--c: #111" }, "critical path")
  );
  draw();
  void document.body.offsetHeight; // the first layout done: the mark counts it
  performance.mark("wfs-rendered");
  document.documentElement.setAttribute("data-rendered", "1");
  setInterval(tick, 1000);
  document.addEventListener("keydown", (event) => event.key === "Escape" && closeTask());
  const live = document.getElementById("live");
  if (token) follow();
  else {
    live.textContent = "exported: a snapshot, not live";
    live.className = "off";
  }
})();
