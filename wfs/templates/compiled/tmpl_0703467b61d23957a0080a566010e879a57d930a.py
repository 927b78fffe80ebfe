from jinja2.runtime import LoopContext, Macro, Markup, Namespace, TemplateNotFound, TemplateReference, TemplateRuntimeError, Undefined, escape, identity, internalcode, markup_join, missing, str_join
name = 'TODO_LIST.md.j2'

def root(context, missing=missing):
    resolve = context.resolve_or_missing
    undefined = environment.undefined
    concat = environment.concat
    cond_expr_undefined = Undefined
    if 0: yield None
    l_0_topic = resolve('topic')
    l_0_kept = resolve('kept')
    l_0_marked = resolve('marked')
    l_0_entries = resolve('entries')
    l_0_session_id = resolve('session_id')
    l_0_has_active = resolve('has_active')
    l_0_has_blocked = resolve('has_blocked')
    l_0_todo_head = l_0_todo_tasks = l_0_todo_tail = missing
    pass
    included_template = environment.get_template('views.md.j2', 'TODO_LIST.md.j2')._get_default_module(context)
    l_0_todo_head = getattr(included_template, 'todo_head', missing)
    if l_0_todo_head is missing:
        l_0_todo_head = undefined(f"the template {included_template.__name__!r} (imported on line 1 in 'TODO_LIST.md.j2') does not export the requested name 'todo_head'", name='todo_head')
    l_0_todo_tasks = getattr(included_template, 'todo_tasks', missing)
    if l_0_todo_tasks is missing:
        l_0_todo_tasks = undefined(f"the template {included_template.__name__!r} (imported on line 1 in 'TODO_LIST.md.j2') does not export the requested name 'todo_tasks'", name='todo_tasks')
    l_0_todo_tail = getattr(included_template, 'todo_tail', missing)
    if l_0_todo_tail is missing:
        l_0_todo_tail = undefined(f"the template {included_template.__name__!r} (imported on line 1 in 'TODO_LIST.md.j2') does not export the requested name 'todo_tail'", name='todo_tail')
    context.vars.update({'todo_head': l_0_todo_head, 'todo_tasks': l_0_todo_tasks, 'todo_tail': l_0_todo_tail})
    context.exported_vars.difference_update(('todo_head', 'todo_tasks', 'todo_tail'))
    yield str(context.call((undefined(name='todo_head') if l_0_todo_head is missing else l_0_todo_head), (undefined(name='topic') if l_0_topic is missing else l_0_topic), (undefined(name='kept') if l_0_kept is missing else l_0_kept), (undefined(name='marked') if l_0_marked is missing else l_0_marked)))
    yield str(context.call((undefined(name='todo_tasks') if l_0_todo_tasks is missing else l_0_todo_tasks), (undefined(name='entries') if l_0_entries is missing else l_0_entries)))
    yield str(context.call((undefined(name='todo_tail') if l_0_todo_tail is missing else l_0_todo_tail), (undefined(name='session_id') if l_0_session_id is missing else l_0_session_id), (not (undefined(name='entries') if l_0_entries is missing else l_0_entries)), (undefined(name='has_active') if l_0_has_active is missing else l_0_has_active), (undefined(name='has_blocked') if l_0_has_blocked is missing else l_0_has_blocked)))

blocks = {}
debug_info = '1=19&2=31&3=32&4=33'