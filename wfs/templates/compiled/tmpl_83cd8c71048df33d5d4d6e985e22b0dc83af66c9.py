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
    l_0_marked = resolve('marked')
    l_0_overview = resolve('overview')
    l_0_requirements = resolve('requirements')
    l_0_entries = resolve('entries')
    l_0_known = resolve('known')
    l_0_plan_head = l_0_plan_body = l_0_plan_rows = l_0_plan_graph = l_0_plan_nodes = l_0_plan_edges = l_0_plan_criteria_head = l_0_plan_criteria = missing
    pass
    included_template = environment.get_template('views.md.j2', 'IMPL_PLAN.md.j2')._get_default_module(context)
    l_0_plan_head = getattr(included_template, 'plan_head', missing)
    if l_0_plan_head is missing:
        l_0_plan_head = undefined(f"the template {included_template.__name__!r} (imported on line 1 in 'IMPL_PLAN.md.j2') does not export the requested name 'plan_head'", name='plan_head')
    l_0_plan_body = getattr(included_template, 'plan_body', missing)
    if l_0_plan_body is missing:
        l_0_plan_body = undefined(f"the template {included_template.__name__!r} (imported on line 1 in 'IMPL_PLAN.md.j2') does not export the requested name 'plan_body'", name='plan_body')
    l_0_plan_rows = getattr(included_template, 'plan_rows', missing)
    if l_0_plan_rows is missing:
        l_0_plan_rows = undefined(f"the template {included_template.__name__!r} (imported on line 1 in 'IMPL_PLAN.md.j2') does not export the requested name 'plan_rows'", name='plan_rows')
    l_0_plan_graph = getattr(included_template, 'plan_graph', missing)
    if l_0_plan_graph is missing:
        l_0_plan_graph = undefined(f"the template {included_template.__name__!r} (imported on line 1 in 'IMPL_PLAN.md.j2') does not export the requested name 'plan_graph'", name='plan_graph')
    l_0_plan_nodes = getattr(included_template, 'plan_nodes', missing)
    if l_0_plan_nodes is missing:
        l_0_plan_nodes = undefined(f"the template {included_template.__name__!r} (imported on line 1 in 'IMPL_PLAN.md.j2') does not export the requested name 'plan_nodes'", name='plan_nodes')
    l_0_plan_edges = getattr(included_template, 'plan_edges', missing)
    if l_0_plan_edges is missing:
        l_0_plan_edges = undefined(f"the template {included_template.__name__!r} (imported on line 1 in 'IMPL_PLAN.md.j2') does not export the requested name 'plan_edges'", name='plan_edges')
    l_0_plan_criteria_head = getattr(included_template, 'plan_criteria_head', missing)
    if l_0_plan_criteria_head is missing:
        l_0_plan_criteria_head = undefined(f"the template {included_template.__name__!r} (imported on line 1 in 'IMPL_PLAN.md.j2') does not export the requested name 'plan_criteria_head'", name='plan_criteria_head')
    l_0_plan_criteria = getattr(included_template, 'plan_criteria', missing)
    if l_0_plan_criteria is missing:
        l_0_plan_criteria = undefined(f"the template {included_template.__name__!r} (imported on line 1 in 'IMPL_PLAN.md.j2') does not export the requested name 'plan_criteria'", name='plan_criteria')
    context.vars.update({'plan_head': l_0_plan_head, 'plan_body': l_0_plan_body, 'plan_rows': l_0_plan_rows, 'plan_graph': l_0_plan_graph, 'plan_nodes': l_0_plan_nodes, 'plan_edges': l_0_plan_edges, 'plan_criteria_head': l_0_plan_criteria_head, 'plan_criteria': l_0_plan_criteria})
    context.exported_vars.difference_update(('plan_head', 'plan_body', 'plan_rows', 'plan_graph', 'plan_nodes', 'plan_edges', 'plan_criteria_head', 'plan_criteria'))
    yield str(context.call((undefined(name='plan_head') if l_0_plan_head is missing else l_0_plan_head), (undefined(name='facts') if l_0_facts is missing else l_0_facts), (undefined(name='done') if l_0_done is missing else l_0_done), (undefined(name='leaves') if l_0_leaves is missing else l_0_leaves), (undefined(name='kept') if l_0_kept is missing else l_0_kept), (undefined(name='marked') if l_0_marked is missing else l_0_marked)))
    yield str(context.call((undefined(name='plan_body') if l_0_plan_body is missing else l_0_plan_body), (undefined(name='overview') if l_0_overview is missing else l_0_overview), (undefined(name='requirements') if l_0_requirements is missing else l_0_requirements), (not (undefined(name='entries') if l_0_entries is missing else l_0_entries))))
    if (undefined(name='entries') if l_0_entries is missing else l_0_entries):
        pass
        yield str(context.call((undefined(name='plan_rows') if l_0_plan_rows is missing else l_0_plan_rows), (undefined(name='entries') if l_0_entries is missing else l_0_entries)))
        yield str(context.call((undefined(name='plan_graph') if l_0_plan_graph is missing else l_0_plan_graph)))
        yield str(context.call((undefined(name='plan_nodes') if l_0_plan_nodes is missing else l_0_plan_nodes), (undefined(name='entries') if l_0_entries is missing else l_0_entries)))
        yield str(context.call((undefined(name='plan_edges') if l_0_plan_edges is missing else l_0_plan_edges), (undefined(name='entries') if l_0_entries is missing else l_0_entries), (undefined(name='known') if l_0_known is missing else l_0_known)))
        yield str(context.call((undefined(name='plan_criteria_head') if l_0_plan_criteria_head is missing else l_0_plan_criteria_head)))
        yield str(context.call((undefined(name='plan_criteria') if l_0_plan_criteria is missing else l_0_plan_criteria), (undefined(name='entries') if l_0_entries is missing else l_0_entries)))

blocks = {}
debug_info = '1=21&2=48&3=49&4=50&5=52&6=53&7=54&8=55&9=56&10=57'