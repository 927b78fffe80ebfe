from jinja2.runtime import LoopContext, Macro, Markup, Namespace, TemplateNotFound, TemplateReference, TemplateRuntimeError, Undefined, escape, identity, internalcode, markup_join, missing, str_join
name = 'IMPL_PLAN.md.j2'

def root(context, missing=missing):
    resolve = context.resolve_or_missing
    undefined = environment.undefined
    concat = environment.concat
    cond_expr_undefined = Undefined
    if 0: yield None
    l_0_facts = resolve('facts')
    l_0_done = resolve('done')
    l_0_leaves = resolve('leaves')
    l_0_kept = resolve('kept')
    l_0_overview = resolve('overview')
    l_0_requirements = resolve('requirements')
    l_0_entries = resolve('entries')
    l_0_plan_head = l_0_plan_body = l_0_plan_row = l_0_plan_graph = l_0_plan_node = l_0_plan_edges = l_0_plan_criteria_head = l_0_plan_criteria = missing
    pass
    included_template = environment.get_template('views.md.j2', 'IMPL_PLAN.md.j2')._get_default_module(context)
    l_0_plan_head = getattr(included_template, 'plan_head', missing)
    if l_0_plan_head is missing:
        l_0_plan_head = undefined(f"the template {included_template.__name__!r} (imported on line 1 in 'IMPL_PLAN.md.j2') does not export the requested name 'plan_head'", name='plan_head')
    l_0_plan_body = getattr(included_template, 'plan_body', missing)
    if l_0_plan_body is missing:
        l_0_plan_body = undefined(f"the template {included_template.__name__!r} (imported on line 1 in 'IMPL_PLAN.md.j2') does not export the requested name 'plan_body'", name='plan_body')
    l_0_plan_row = getattr(included_template, 'plan_row', missing)
    if l_0_plan_row is missing:
        l_0_plan_row = undefined(f"the template {included_template.__name__!r} (imported on line 1 in 'IMPL_PLAN.md.j2') does not export the requested name 'plan_row'", name='plan_row')
    l_0_plan_graph = getattr(included_template, 'plan_graph', missing)
    if l_0_plan_graph is missing:
        l_0_plan_graph = undefined(f"the template {included_template.__name__!r} (imported on line 1 in 'IMPL_PLAN.md.j2') does not export the requested name 'plan_graph'", name='plan_graph')
    l_0_plan_node = getattr(included_template, 'plan_node', missing)
    if l_0_plan_node is missing:
        l_0_plan_node = undefined(f"the template {included_template.__name__!r} (imported on line 1 in 'IMPL_PLAN.md.j2') does not export the requested name 'plan_node'", name='plan_node')
    l_0_plan_edges = getattr(included_template, 'plan_edges', missing)
    if l_0_plan_edges is missing:
        l_0_plan_edges = undefined(f"the template {included_template.__name__!r} (imported on line 1 in 'IMPL_PLAN.md.j2') does not export the requested name 'plan_edges'", name='plan_edges')
    l_0_plan_criteria_head = getattr(included_template, 'plan_criteria_head', missing)
    if l_0_plan_criteria_head is missing:
        l_0_plan_criteria_head = undefined(f"the template {included_template.__name__!r} (imported on line 1 in 'IMPL_PLAN.md.j2') does not export the requested name 'plan_criteria_head'", name='plan_criteria_head')
    l_0_plan_criteria = getattr(included_template, 'plan_criteria', missing)
    if l_0_plan_criteria is missing:
        l_0_plan_criteria = undefined(f"the template {included_template.__name__!r} (imported on line 1 in 'IMPL_PLAN.md.j2') does not export the requested name 'plan_criteria'", name='plan_criteria')
    context.vars.update({'plan_head': l_0_plan_head, 'plan_body': l_0_plan_body, 'plan_row': l_0_plan_row, 'plan_graph': l_0_plan_graph, 'plan_node': l_0_plan_node, 'plan_edges': l_0_plan_edges, 'plan_criteria_head': l_0_plan_criteria_head, 'plan_criteria': l_0_plan_criteria})
    context.exported_vars.difference_update(('plan_head', 'plan_body', 'plan_row', 'plan_graph', 'plan_node', 'plan_edges', 'plan_criteria_head', 'plan_criteria'))
    yield str(context.call((undefined(name='plan_head') if l_0_plan_head is missing else l_0_plan_head), (undefined(name='facts') if l_0_facts is missing else l_0_facts), (undefined(name='done') if l_0_done is missing else l_0_done), (undefined(name='leaves') if l_0_leaves is missing else l_0_leaves), (undefined(name='kept') if l_0_kept is missing else l_0_kept)))
    yield str(context.call((undefined(name='plan_body') if l_0_plan_body is missing else l_0_plan_body), (undefined(name='overview') if l_0_overview is missing else l_0_overview), (undefined(name='requirements') if l_0_requirements is missing else l_0_requirements), (not (undefined(name='entries') if l_0_entries is missing else l_0_entries))))
    if (undefined(name='entries') if l_0_entries is missing else l_0_entries):
        pass
        for l_1_e in (undefined(name='entries') if l_0_entries is missing else l_0_entries):
            _loop_vars = {}
            pass
            yield str(context.call((undefined(name='plan_row') if l_0_plan_row is missing else l_0_plan_row), l_1_e, _loop_vars=_loop_vars))
        l_1_e = missing
        yield str(context.call((undefined(name='plan_graph') if l_0_plan_graph is missing else l_0_plan_graph)))
        def t_1(fiter):
            for l_1_e in fiter:
                if (not environment.getattr(l_1_e, 'nested')):
                    yield l_1_e
        for l_1_e in t_1((undefined(name='entries') if l_0_entries is missing else l_0_entries)):
            _loop_vars = {}
            pass
            yield str(context.call((undefined(name='plan_node') if l_0_plan_node is missing else l_0_plan_node), l_1_e, _loop_vars=_loop_vars))
        l_1_e = missing
        for l_1_e in (undefined(name='entries') if l_0_entries is missing else l_0_entries):
            l_1_known = resolve('known')
            _loop_vars = {}
            pass
            yield str(context.call((undefined(name='plan_edges') if l_0_plan_edges is missing else l_0_plan_edges), l_1_e, (undefined(name='known') if l_1_known is missing else l_1_known), _loop_vars=_loop_vars))
        l_1_e = l_1_known = missing
        yield str(context.call((undefined(name='plan_criteria_head') if l_0_plan_criteria_head is missing else l_0_plan_criteria_head)))
        for l_1_e in (undefined(name='entries') if l_0_entries is missing else l_0_entries):
            _loop_vars = {}
            pass
            yield str(context.call((undefined(name='plan_criteria') if l_0_plan_criteria is missing else l_0_plan_criteria), l_1_e, _loop_vars=_loop_vars))
        l_1_e = missing

blocks = {}
debug_info = '1=19&2=46&3=47&4=48&5=50&6=53&8=55&9=56&10=63&12=65&13=69&15=71&16=72&17=75'