from jinja2.runtime import LoopContext, Macro, Markup, Namespace, TemplateNotFound, TemplateReference, TemplateRuntimeError, Undefined, escape, identity, internalcode, markup_join, missing, str_join
name = 'views.md.j2'

def root(context, missing=missing):
    resolve = context.resolve_or_missing
    undefined = environment.undefined
    concat = environment.concat
    cond_expr_undefined = Undefined
    if 0: yield None
    l_0_mark = l_0_SOURCE = l_0_todo_head = l_0_todo_tasks = l_0_todo_tail = l_0_plan_head = l_0_plan_body = l_0_plan_rows = l_0_plan_graph = l_0_plan_nodes = l_0_plan_edges = l_0_plan_criteria_head = l_0_plan_criteria = missing
    try:
        t_1 = environment.filters['cell']
    except KeyError:
        @internalcode
        def t_1(*unused):
            raise TemplateRuntimeError("No filter named 'cell' found.")
    try:
        t_2 = environment.filters['join']
    except KeyError:
        @internalcode
        def t_2(*unused):
            raise TemplateRuntimeError("No filter named 'join' found.")
    try:
        t_3 = environment.filters['node']
    except KeyError:
        @internalcode
        def t_3(*unused):
            raise TemplateRuntimeError("No filter named 'node' found.")
    try:
        t_4 = environment.filters['replace']
    except KeyError:
        @internalcode
        def t_4(*unused):
            raise TemplateRuntimeError("No filter named 'replace' found.")
    pass
    included_template = environment.get_template('mark.md.j2', 'views.md.j2')._get_default_module(context)
    l_0_mark = getattr(included_template, 'mark', missing)
    if l_0_mark is missing:
        l_0_mark = undefined(f"the template {included_template.__name__!r} (imported on line 9 in 'views.md.j2') does not export the requested name 'mark'", name='mark')
    context.vars['mark'] = l_0_mark
    context.exported_vars.discard('mark')
    l_0_SOURCE = 'a view of workflow-session.json and .task/*.json; edit those, not this file'
    context.vars['SOURCE'] = l_0_SOURCE
    context.exported_vars.add('SOURCE')
    def macro(l_1_topic, l_1_kept, l_1_marked):
        t_5 = []
        if l_1_topic is missing:
            l_1_topic = undefined("parameter 'topic' was not provided", name='topic')
        if l_1_kept is missing:
            l_1_kept = undefined("parameter 'kept' was not provided", name='kept')
        if l_1_marked is missing:
            l_1_marked = True
        pass
        if l_1_marked:
            pass
            t_5.append(
                str(context.call((undefined(name='mark') if l_0_mark is missing else l_0_mark), (undefined(name='SOURCE') if l_0_SOURCE is missing else l_0_SOURCE))),
            )
        t_5.extend((
            '# Tasks: ',
            str(l_1_topic),
            '\n\n',
        ))
        for l_2_name in l_1_kept:
            _loop_vars = {}
            pass
            t_5.extend((
                '> Kept as written before wfs generated this view: [',
                str(l_2_name),
                '](./',
                str(l_2_name),
                ')\n\n',
            ))
        l_2_name = missing
        t_5.append(
            '## Task Progress\n',
        )
        return concat(t_5)
    context.exported_vars.add('todo_head')
    context.vars['todo_head'] = l_0_todo_head = Macro(environment, macro, 'todo_head', ('topic', 'kept', 'marked'), False, False, False, context.eval_ctx.autoescape)
    yield '\n'
    def macro(l_1_entries):
        t_6 = []
        if l_1_entries is missing:
            l_1_entries = undefined("parameter 'entries' was not provided", name='entries')
        pass
        for l_2_e in l_1_entries:
            _loop_vars = {}
            pass
            if environment.getattr(l_2_e, 'gap'):
                pass
                t_6.append(
                    '\n',
                )
            if environment.getattr(l_2_e, 'container'):
                pass
                t_6.extend((
                    '▸ **',
                    str(environment.getattr(l_2_e, 'id')),
                    '**: ',
                    str(environment.getattr(l_2_e, 'title')),
                    ' → [📋](./.task/',
                    str(environment.getattr(l_2_e, 'id')),
                    '.json)\n',
                ))
            else:
                pass
                t_6.extend((
                    str(('  ' if environment.getattr(l_2_e, 'nested') else '')),
                    '- [',
                    str(('x' if (environment.getattr(l_2_e, 'status') == 'completed') else ' ')),
                    '] **',
                    str(environment.getattr(l_2_e, 'id')),
                    '**: ',
                    str(environment.getattr(l_2_e, 'title')),
                    ' → [📋](./.task/',
                    str(environment.getattr(l_2_e, 'id')),
                    '.json)',
                ))
                if (environment.getattr(l_2_e, 'status') == 'completed'):
                    pass
                    t_6.extend((
                        ' | [✅](./.summaries/',
                        str(environment.getattr(l_2_e, 'id')),
                        '-summary.md)',
                    ))
                elif (environment.getattr(l_2_e, 'status') == 'active'):
                    pass
                    t_6.append(
                        ' ⏳ active',
                    )
                elif (environment.getattr(l_2_e, 'status') == 'blocked'):
                    pass
                    t_6.append(
                        ' 🚫 blocked',
                    )
                t_6.append(
                    '\n',
                )
        l_2_e = missing
        return concat(t_6)
    context.exported_vars.add('todo_tasks')
    context.vars['todo_tasks'] = l_0_todo_tasks = Macro(environment, macro, 'todo_tasks', ('entries',), False, False, False, context.eval_ctx.autoescape)
    yield '\n'
    def macro(l_1_session_id, l_1_empty, l_1_has_active, l_1_has_blocked):
        t_7 = []
        if l_1_session_id is missing:
            l_1_session_id = undefined("parameter 'session_id' was not provided", name='session_id')
        if l_1_empty is missing:
            l_1_empty = undefined("parameter 'empty' was not provided", name='empty')
        if l_1_has_active is missing:
            l_1_has_active = undefined("parameter 'has_active' was not provided", name='has_active')
        if l_1_has_blocked is missing:
            l_1_has_blocked = undefined("parameter 'has_blocked' was not provided", name='has_blocked')
        pass
        if l_1_empty:
            pass
            t_7.extend((
                '_No tasks yet: add them with `wfs plan --session ',
                str(l_1_session_id),
                ' --from PLAN.json` or `wfs task add`._\n',
            ))
        t_7.append(
            '\n## Status Legend\n- `▸` = Container task (has subtasks)\n- `- [ ]` = Pending leaf task\n- `- [x]` = Completed leaf task\n',
        )
        if l_1_has_active:
            pass
            t_7.append(
                '- `⏳ active` = Leaf task in progress\n',
            )
        if l_1_has_blocked:
            pass
            t_7.append(
                '- `🚫 blocked` = Leaf task blocked (see its JSON for the reason)\n',
            )
        t_7.append(
            '- Maximum 2 levels: Main tasks and subtasks only\n',
        )
        return concat(t_7)
    context.exported_vars.add('todo_tail')
    context.vars['todo_tail'] = l_0_todo_tail = Macro(environment, macro, 'todo_tail', ('session_id', 'empty', 'has_active', 'has_blocked'), False, False, False, context.eval_ctx.autoescape)
    yield '\n'
    def macro(l_1_facts, l_1_done, l_1_leaves, l_1_kept, l_1_marked):
        t_8 = []
        if l_1_facts is missing:
            l_1_facts = undefined("parameter 'facts' was not provided", name='facts')
        if l_1_done is missing:
            l_1_done = undefined("parameter 'done' was not provided", name='done')
        if l_1_leaves is missing:
            l_1_leaves = undefined("parameter 'leaves' was not provided", name='leaves')
        if l_1_kept is missing:
            l_1_kept = undefined("parameter 'kept' was not provided", name='kept')
        if l_1_marked is missing:
            l_1_marked = True
        pass
        if l_1_marked:
            pass
            t_8.append(
                str(context.call((undefined(name='mark') if l_0_mark is missing else l_0_mark), (undefined(name='SOURCE') if l_0_SOURCE is missing else l_0_SOURCE))),
            )
        t_8.extend((
            '# Implementation Plan: ',
            str(environment.getattr(l_1_facts, 'topic')),
            '\n\n- **Session**: `',
            str(environment.getattr(l_1_facts, 'session_id')),
            '`\n- **Type**: ',
            str(environment.getattr(l_1_facts, 'type')),
            ' · **Phase**: ',
            str(environment.getattr(l_1_facts, 'phase')),
        ))
        if environment.getattr(l_1_facts, 'status'):
            pass
            t_8.extend((
                ' · **Status**: ',
                str(environment.getattr(l_1_facts, 'status')),
            ))
        t_8.extend((
            '\n- **Progress**: ',
            str(l_1_done),
            '/',
            str(l_1_leaves),
            ' tasks completed\n',
        ))
        for l_2_name in l_1_kept:
            _loop_vars = {}
            pass
            t_8.extend((
                '- **Authored plan**: [',
                str(l_2_name),
                '](./',
                str(l_2_name),
                ') (written before wfs generated this view, kept as it was)\n',
            ))
        l_2_name = missing
        return concat(t_8)
    context.exported_vars.add('plan_head')
    context.vars['plan_head'] = l_0_plan_head = Macro(environment, macro, 'plan_head', ('facts', 'done', 'leaves', 'kept', 'marked'), False, False, False, context.eval_ctx.autoescape)
    yield '\n'
    def macro(l_1_overview, l_1_requirements, l_1_empty):
        t_9 = []
        if l_1_overview is missing:
            l_1_overview = undefined("parameter 'overview' was not provided", name='overview')
        if l_1_requirements is missing:
            l_1_requirements = undefined("parameter 'requirements' was not provided", name='requirements')
        if l_1_empty is missing:
            l_1_empty = undefined("parameter 'empty' was not provided", name='empty')
        pass
        t_9.append(
            '\n## Overview\n',
        )
        if l_1_overview:
            pass
            t_9.extend((
                str(l_1_overview),
                '\n',
            ))
        else:
            pass
            t_9.append(
                '_No overview yet._\n',
            )
        t_9.append(
            '\n## Requirements\n',
        )
        t_10 = 1
        for l_2_requirement in l_1_requirements:
            _loop_vars = {}
            pass
            t_9.extend((
                '- ',
                str(l_2_requirement),
                '\n',
            ))
            t_10 = 0
        l_2_requirement = missing
        if t_10:
            pass
            t_9.append(
                '_No requirements recorded._\n',
            )
        t_9.append(
            '\n## Task Structure\n',
        )
        if l_1_empty:
            pass
            t_9.append(
                '_No tasks yet._\n',
            )
        else:
            pass
            t_9.append(
                '| ID | Title | Status | Depends on | Agent |\n|---|---|---|---|---|\n',
            )
        return concat(t_9)
    context.exported_vars.add('plan_body')
    context.vars['plan_body'] = l_0_plan_body = Macro(environment, macro, 'plan_body', ('overview', 'requirements', 'empty'), False, False, False, context.eval_ctx.autoescape)
    yield '\n'
    def macro(l_1_entries):
        t_11 = []
        if l_1_entries is missing:
            l_1_entries = undefined("parameter 'entries' was not provided", name='entries')
        pass
        for l_2_e in l_1_entries:
            _loop_vars = {}
            pass
            t_11.extend((
                '| ',
                str(('↳ ' if environment.getattr(l_2_e, 'nested') else '')),
                str(environment.getattr(l_2_e, 'id')),
                ' | ',
                str(t_1(environment.getattr(l_2_e, 'title'))),
                ' | ',
                str(environment.getattr(l_2_e, 'status')),
                ' | ',
                str((t_2(context.eval_ctx, environment.getattr(l_2_e, 'depends_on'), ', ') or '—')),
                ' | ',
                str((t_1(environment.getattr(l_2_e, 'agent')) or '—')),
                ' |\n',
            ))
        l_2_e = missing
        return concat(t_11)
    context.exported_vars.add('plan_rows')
    context.vars['plan_rows'] = l_0_plan_rows = Macro(environment, macro, 'plan_rows', ('entries',), False, False, False, context.eval_ctx.autoescape)
    yield '\n'
    def macro():
        t_12 = []
        pass
        t_12.append(
            '\n## Dependency Graph\n```mermaid\ngraph TD\n',
        )
        return concat(t_12)
    context.exported_vars.add('plan_graph')
    context.vars['plan_graph'] = l_0_plan_graph = Macro(environment, macro, 'plan_graph', (), False, False, False, context.eval_ctx.autoescape)
    yield '\n'
    def macro(l_1_entries):
        t_13 = []
        if l_1_entries is missing:
            l_1_entries = undefined("parameter 'entries' was not provided", name='entries')
        pass
        for l_2_e in l_1_entries:
            l_2_label = missing
            _loop_vars = {}
            pass
            l_2_label = t_4(context.eval_ctx, str_join((environment.getattr(l_2_e, 'id'), ': ', environment.getattr(l_2_e, 'title'), )), '"', '#quot;')
            _loop_vars['label'] = l_2_label
            if environment.getattr(l_2_e, 'container'):
                pass
                t_13.extend((
                    '  subgraph ',
                    str(t_3(environment.getattr(l_2_e, 'id'))),
                    ' ["',
                    str((undefined(name='label') if l_2_label is missing else l_2_label)),
                    '"]\n',
                ))
            else:
                pass
                t_13.extend((
                    str(('    ' if environment.getattr(l_2_e, 'nested') else '  ')),
                    str(t_3(environment.getattr(l_2_e, 'id'))),
                    '["',
                    str((undefined(name='label') if l_2_label is missing else l_2_label)),
                    '"]\n',
                ))
            if environment.getattr(l_2_e, 'closes'):
                pass
                t_13.append(
                    '  end\n',
                )
        l_2_e = l_2_label = missing
        return concat(t_13)
    context.exported_vars.add('plan_nodes')
    context.vars['plan_nodes'] = l_0_plan_nodes = Macro(environment, macro, 'plan_nodes', ('entries',), False, False, False, context.eval_ctx.autoescape)
    yield '\n'
    def macro(l_1_entries, l_1_known):
        t_14 = []
        if l_1_entries is missing:
            l_1_entries = undefined("parameter 'entries' was not provided", name='entries')
        if l_1_known is missing:
            l_1_known = undefined("parameter 'known' was not provided", name='known')
        pass
        for l_2_e in l_1_entries:
            _loop_vars = {}
            pass
            def t_15(fiter):
                for l_3_dependency in fiter:
                    if (l_3_dependency in l_1_known):
                        yield l_3_dependency
            for l_3_dependency in t_15(environment.getattr(l_2_e, 'depends_on')):
                _loop_vars = {}
                pass
                t_14.extend((
                    '  ',
                    str(t_3(l_3_dependency)),
                    ' --> ',
                    str(t_3(environment.getattr(l_2_e, 'id'))),
                    '\n',
                ))
            l_3_dependency = missing
        l_2_e = missing
        return concat(t_14)
    context.exported_vars.add('plan_edges')
    context.vars['plan_edges'] = l_0_plan_edges = Macro(environment, macro, 'plan_edges', ('entries', 'known'), False, False, False, context.eval_ctx.autoescape)
    yield '\n'
    def macro():
        t_16 = []
        pass
        t_16.append(
            '```\n\n## Acceptance Criteria\n',
        )
        return concat(t_16)
    context.exported_vars.add('plan_criteria_head')
    context.vars['plan_criteria_head'] = l_0_plan_criteria_head = Macro(environment, macro, 'plan_criteria_head', (), False, False, False, context.eval_ctx.autoescape)
    yield '\n'
    def macro(l_1_entries):
        t_17 = []
        if l_1_entries is missing:
            l_1_entries = undefined("parameter 'entries' was not provided", name='entries')
        pass
        for l_2_e in l_1_entries:
            _loop_vars = {}
            pass
            t_17.extend((
                '\n### ',
                str(environment.getattr(l_2_e, 'id')),
                ': ',
                str(environment.getattr(l_2_e, 'title')),
                '\n',
            ))
            t_18 = 1
            for l_3_item in environment.getattr(l_2_e, 'acceptance'):
                _loop_vars = {}
                pass
                t_17.extend((
                    '- ',
                    str(l_3_item),
                    '\n',
                ))
                t_18 = 0
            l_3_item = missing
            if t_18:
                pass
                t_17.append(
                    '_None recorded._\n',
                )
        l_2_e = missing
        return concat(t_17)
    context.exported_vars.add('plan_criteria')
    context.vars['plan_criteria'] = l_0_plan_criteria = Macro(environment, macro, 'plan_criteria', ('entries',), False, False, False, context.eval_ctx.autoescape)

blocks = {}
debug_info = '9=36&10=42&13=45&14=54&15=57&17=61&19=64&20=69&27=82&28=87&29=90&32=95&33=99&35=109&36=120&37=127&38=132&46=145&47=156&48=160&55=166&58=171&66=183&67=196&68=199&70=203&72=205&73=207&74=219&75=224&76=229&81=239&84=251&85=254&91=266&92=271&98=284&107=298&108=303&109=308&113=325&122=335&123=340&124=344&125=346&126=350&128=358&130=364&137=374&138=381&139=384&140=393&145=404&152=414&153=419&155=424&156=430&157=435'