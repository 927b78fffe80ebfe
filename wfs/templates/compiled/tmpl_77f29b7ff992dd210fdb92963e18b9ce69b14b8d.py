from jinja2.runtime import LoopContext, Macro, Markup, Namespace, TemplateNotFound, TemplateReference, TemplateRuntimeError, Undefined, escape, identity, internalcode, markup_join, missing, str_join
name = 'views.md.j2'

def root(context, missing=missing):
    resolve = context.resolve_or_missing
    undefined = environment.undefined
    concat = environment.concat
    cond_expr_undefined = Undefined
    if 0: yield None
    l_0_todo_head = l_0_todo_piece = l_0_todo_tail = l_0_plan_head = l_0_plan_body = l_0_plan_row = l_0_plan_graph = l_0_plan_node_line = l_0_plan_node = l_0_plan_edges = l_0_plan_criteria_head = l_0_plan_criteria = missing
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
    pass
    def macro(l_1_topic, l_1_kept):
        t_4 = []
        if l_1_topic is missing:
            l_1_topic = undefined("parameter 'topic' was not provided", name='topic')
        if l_1_kept is missing:
            l_1_kept = undefined("parameter 'kept' was not provided", name='kept')
        pass
        t_4.extend((
            '# Tasks: ',
            str(l_1_topic),
            '\n\n',
        ))
        for l_2_name in l_1_kept:
            _loop_vars = {}
            pass
            t_4.extend((
                '> Kept as written before wfs generated this view: [',
                str(l_2_name),
                '](./',
                str(l_2_name),
                ')\n\n',
            ))
        l_2_name = missing
        t_4.append(
            '## Task Progress\n',
        )
        return concat(t_4)
    context.exported_vars.add('todo_head')
    context.vars['todo_head'] = l_0_todo_head = Macro(environment, macro, 'todo_head', ('topic', 'kept'), False, False, False, context.eval_ctx.autoescape)
    yield '\n'
    def macro(l_1_e):
        t_5 = []
        if l_1_e is missing:
            l_1_e = undefined("parameter 'e' was not provided", name='e')
        pass
        if environment.getattr(l_1_e, 'gap'):
            pass
            t_5.append(
                '\n',
            )
        if environment.getattr(l_1_e, 'container'):
            pass
            t_5.extend((
                '▸ **',
                str(environment.getattr(l_1_e, 'id')),
                '**: ',
                str(environment.getattr(l_1_e, 'title')),
                ' → [📋](./.task/',
                str(environment.getattr(l_1_e, 'id')),
                '.json)\n',
            ))
        else:
            pass
            t_5.extend((
                str(('  ' if environment.getattr(l_1_e, 'nested') else '')),
                '- [',
                str(('x' if (environment.getattr(l_1_e, 'status') == 'completed') else ' ')),
                '] **',
                str(environment.getattr(l_1_e, 'id')),
                '**: ',
                str(environment.getattr(l_1_e, 'title')),
                ' → [📋](./.task/',
                str(environment.getattr(l_1_e, 'id')),
                '.json)',
            ))
            if (environment.getattr(l_1_e, 'status') == 'completed'):
                pass
                t_5.extend((
                    ' | [✅](./.summaries/',
                    str(environment.getattr(l_1_e, 'id')),
                    '-summary.md)',
                ))
            elif (environment.getattr(l_1_e, 'status') == 'active'):
                pass
                t_5.append(
                    ' ⏳ active',
                )
            elif (environment.getattr(l_1_e, 'status') == 'blocked'):
                pass
                t_5.append(
                    ' 🚫 blocked',
                )
            t_5.append(
                '\n',
            )
        return concat(t_5)
    context.exported_vars.add('todo_piece')
    context.vars['todo_piece'] = l_0_todo_piece = Macro(environment, macro, 'todo_piece', ('e',), False, False, False, context.eval_ctx.autoescape)
    yield '\n'
    def macro(l_1_session_id, l_1_empty, l_1_has_active, l_1_has_blocked):
        t_6 = []
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
            t_6.extend((
                '_No tasks yet: add them with `wfs plan --session ',
                str(l_1_session_id),
                ' --from PLAN.json` or `wfs task add`._\n',
            ))
        t_6.append(
            '\n## Status Legend\n- `▸` = Container task (has subtasks)\n- `- [ ]` = Pending leaf task\n- `- [x]` = Completed leaf task\n',
        )
        if l_1_has_active:
            pass
            t_6.append(
                '- `⏳ active` = Leaf task in progress\n',
            )
        if l_1_has_blocked:
            pass
            t_6.append(
                '- `🚫 blocked` = Leaf task blocked (see its JSON for the reason)\n',
            )
        t_6.append(
            '- Maximum 2 levels: Main tasks and subtasks only\n',
        )
        return concat(t_6)
    context.exported_vars.add('todo_tail')
    context.vars['todo_tail'] = l_0_todo_tail = Macro(environment, macro, 'todo_tail', ('session_id', 'empty', 'has_active', 'has_blocked'), False, False, False, context.eval_ctx.autoescape)
    yield '\n'
    def macro(l_1_facts, l_1_done, l_1_leaves, l_1_kept):
        t_7 = []
        if l_1_facts is missing:
            l_1_facts = undefined("parameter 'facts' was not provided", name='facts')
        if l_1_done is missing:
            l_1_done = undefined("parameter 'done' was not provided", name='done')
        if l_1_leaves is missing:
            l_1_leaves = undefined("parameter 'leaves' was not provided", name='leaves')
        if l_1_kept is missing:
            l_1_kept = undefined("parameter 'kept' was not provided", name='kept')
        pass
        t_7.extend((
            '# Implementation Plan: ',
            str(environment.getattr(l_1_facts, 'topic')),
            '\n\n- **Session**: `',
            str(environment.getattr(l_1_facts, 'session_id')),
            '`\n- **Type**: ',
            str(environment.getattr(l_1_facts, 'type')),
            ' · **Phase**: ',
            str(environment.getattr(l_1_facts, 'phase')),
            ' · **Status**: ',
            str(environment.getattr(l_1_facts, 'status')),
            '\n- **Progress**: ',
            str(l_1_done),
            '/',
            str(l_1_leaves),
            ' tasks completed\n',
        ))
        for l_2_name in l_1_kept:
            _loop_vars = {}
            pass
            t_7.extend((
                '- **Authored plan**: [',
                str(l_2_name),
                '](./',
                str(l_2_name),
                ') (written before wfs generated this view, kept as it was)\n',
            ))
        l_2_name = missing
        return concat(t_7)
    context.exported_vars.add('plan_head')
    context.vars['plan_head'] = l_0_plan_head = Macro(environment, macro, 'plan_head', ('facts', 'done', 'leaves', 'kept'), False, False, False, context.eval_ctx.autoescape)
    yield '\n'
    def macro(l_1_overview, l_1_requirements, l_1_empty):
        t_8 = []
        if l_1_overview is missing:
            l_1_overview = undefined("parameter 'overview' was not provided", name='overview')
        if l_1_requirements is missing:
            l_1_requirements = undefined("parameter 'requirements' was not provided", name='requirements')
        if l_1_empty is missing:
            l_1_empty = undefined("parameter 'empty' was not provided", name='empty')
        pass
        t_8.append(
            '\n## Overview\n',
        )
        if l_1_overview:
            pass
            t_8.extend((
                str(l_1_overview),
                '\n',
            ))
        else:
            pass
            t_8.append(
                '_No overview yet._\n',
            )
        t_8.append(
            '\n## Requirements\n',
        )
        t_9 = 1
        for l_2_requirement in l_1_requirements:
            _loop_vars = {}
            pass
            t_8.extend((
                '- ',
                str(l_2_requirement),
                '\n',
            ))
            t_9 = 0
        l_2_requirement = missing
        if t_9:
            pass
            t_8.append(
                '_No requirements recorded._\n',
            )
        t_8.append(
            '\n## Task Structure\n',
        )
        if l_1_empty:
            pass
            t_8.append(
                '_No tasks yet._\n',
            )
        else:
            pass
            t_8.append(
                '| ID | Title | Status | Depends on | Agent |\n|---|---|---|---|---|\n',
            )
        return concat(t_8)
    context.exported_vars.add('plan_body')
    context.vars['plan_body'] = l_0_plan_body = Macro(environment, macro, 'plan_body', ('overview', 'requirements', 'empty'), False, False, False, context.eval_ctx.autoescape)
    yield '\n'
    def macro(l_1_e):
        t_10 = []
        if l_1_e is missing:
            l_1_e = undefined("parameter 'e' was not provided", name='e')
        pass
        t_10.extend((
            '| ',
            str(('↳ ' if environment.getattr(l_1_e, 'nested') else '')),
            str(environment.getattr(l_1_e, 'id')),
            ' | ',
            str(t_1(environment.getattr(l_1_e, 'title'))),
            ' | ',
            str(environment.getattr(l_1_e, 'status')),
            ' | ',
            str((t_2(context.eval_ctx, environment.getattr(l_1_e, 'depends_on'), ', ') or '—')),
            ' | ',
            str((t_1(environment.getattr(l_1_e, 'agent')) or '—')),
            ' |\n',
        ))
        return concat(t_10)
    context.exported_vars.add('plan_row')
    context.vars['plan_row'] = l_0_plan_row = Macro(environment, macro, 'plan_row', ('e',), False, False, False, context.eval_ctx.autoescape)
    yield '\n'
    def macro():
        t_11 = []
        pass
        t_11.append(
            '\n## Dependency Graph\n```mermaid\ngraph TD\n',
        )
        return concat(t_11)
    context.exported_vars.add('plan_graph')
    context.vars['plan_graph'] = l_0_plan_graph = Macro(environment, macro, 'plan_graph', (), False, False, False, context.eval_ctx.autoescape)
    yield '\n'
    def macro(l_1_e):
        t_12 = []
        if l_1_e is missing:
            l_1_e = undefined("parameter 'e' was not provided", name='e')
        pass
        if environment.getattr(l_1_e, 'container'):
            pass
            t_12.extend((
                '  subgraph ',
                str(environment.getattr(l_1_e, 'node')),
                ' ["',
                str(environment.getattr(l_1_e, 'label')),
                '"]\n',
            ))
        else:
            pass
            t_12.extend((
                str(('    ' if environment.getattr(l_1_e, 'nested') else '  ')),
                str(environment.getattr(l_1_e, 'node')),
                '["',
                str(environment.getattr(l_1_e, 'label')),
                '"]\n',
            ))
        return concat(t_12)
    context.exported_vars.add('plan_node_line')
    context.vars['plan_node_line'] = l_0_plan_node_line = Macro(environment, macro, 'plan_node_line', ('e',), False, False, False, context.eval_ctx.autoescape)
    yield '\n'
    def macro(l_1_e):
        t_13 = []
        if l_1_e is missing:
            l_1_e = undefined("parameter 'e' was not provided", name='e')
        pass
        t_13.append(
            str(context.call((undefined(name='plan_node_line') if l_0_plan_node_line is missing else l_0_plan_node_line), l_1_e)),
        )
        if environment.getattr(l_1_e, 'container'):
            pass
            for l_2_child in environment.getattr(l_1_e, 'children'):
                _loop_vars = {}
                pass
                t_13.append(
                    str(context.call((undefined(name='plan_node_line') if l_0_plan_node_line is missing else l_0_plan_node_line), l_2_child, _loop_vars=_loop_vars)),
                )
            l_2_child = missing
            t_13.append(
                '  end\n',
            )
        return concat(t_13)
    context.exported_vars.add('plan_node')
    context.vars['plan_node'] = l_0_plan_node = Macro(environment, macro, 'plan_node', ('e',), False, False, False, context.eval_ctx.autoescape)
    yield '\n'
    def macro(l_1_e, l_1_known):
        t_14 = []
        if l_1_e is missing:
            l_1_e = undefined("parameter 'e' was not provided", name='e')
        if l_1_known is missing:
            l_1_known = undefined("parameter 'known' was not provided", name='known')
        pass
        def t_15(fiter):
            for l_2_dependency in fiter:
                if (l_2_dependency in l_1_known):
                    yield l_2_dependency
        for l_2_dependency in t_15(environment.getattr(l_1_e, 'depends_on')):
            _loop_vars = {}
            pass
            t_14.extend((
                '  ',
                str(t_3(l_2_dependency)),
                ' --> ',
                str(environment.getattr(l_1_e, 'node')),
                '\n',
            ))
        l_2_dependency = missing
        return concat(t_14)
    context.exported_vars.add('plan_edges')
    context.vars['plan_edges'] = l_0_plan_edges = Macro(environment, macro, 'plan_edges', ('e', 'known'), False, False, False, context.eval_ctx.autoescape)
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
    def macro(l_1_e):
        t_17 = []
        if l_1_e is missing:
            l_1_e = undefined("parameter 'e' was not provided", name='e')
        pass
        t_17.extend((
            '\n### ',
            str(environment.getattr(l_1_e, 'id')),
            ': ',
            str(environment.getattr(l_1_e, 'title')),
            '\n',
        ))
        t_18 = 1
        for l_2_item in environment.getattr(l_1_e, 'acceptance'):
            _loop_vars = {}
            pass
            t_17.extend((
                '- ',
                str(l_2_item),
                '\n',
            ))
            t_18 = 0
        l_2_item = missing
        if t_18:
            pass
            t_17.append(
                '_None recorded._\n',
            )
        return concat(t_17)
    context.exported_vars.add('plan_criteria')
    context.vars['plan_criteria'] = l_0_plan_criteria = Macro(environment, macro, 'plan_criteria', ('e',), False, False, False, context.eval_ctx.autoescape)

blocks = {}
debug_info = '9=30&10=39&12=42&13=47&20=60&21=65&24=70&25=74&27=84&28=95&29=102&30=107&37=119&38=130&39=134&46=140&49=145&57=157&58=170&60=172&61=174&62=180&63=185&64=190&69=200&72=212&73=215&79=227&80=232&86=245&94=259&95=266&98=282&106=292&107=297&108=301&110=309&115=319&116=325&117=327&118=329&119=333&126=343&127=350&128=359&132=369&138=379&140=386&141=392&142=397'