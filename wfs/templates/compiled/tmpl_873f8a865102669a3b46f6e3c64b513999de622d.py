from jinja2.runtime import LoopContext, Macro, Markup, Namespace, TemplateNotFound, TemplateReference, TemplateRuntimeError, Undefined, escape, identity, internalcode, markup_join, missing, str_join
name = 'summary.md.j2'

def root(context, missing=missing):
    resolve = context.resolve_or_missing
    undefined = environment.undefined
    concat = environment.concat
    cond_expr_undefined = Undefined
    if 0: yield None
    l_0_id = resolve('id')
    l_0_title = resolve('title')
    l_0_kept = resolve('kept')
    l_0_agent = resolve('agent')
    l_0_steps = resolve('steps')
    l_0_outputs = resolve('outputs')
    l_0_changed = resolve('changed')
    l_0_mark = missing
    try:
        t_1 = environment.filters['cell']
    except KeyError:
        @internalcode
        def t_1(*unused):
            raise TemplateRuntimeError("No filter named 'cell' found.")
    try:
        t_2 = environment.filters['format']
    except KeyError:
        @internalcode
        def t_2(*unused):
            raise TemplateRuntimeError("No filter named 'format' found.")
    pass
    included_template = environment.get_template('mark.md.j2', 'summary.md.j2')._get_default_module(context)
    l_0_mark = getattr(included_template, 'mark', missing)
    if l_0_mark is missing:
        l_0_mark = undefined(f"the template {included_template.__name__!r} (imported on line 7 in 'summary.md.j2') does not export the requested name 'mark'", name='mark')
    context.vars['mark'] = l_0_mark
    context.exported_vars.discard('mark')
    yield str(context.call((undefined(name='mark') if l_0_mark is missing else l_0_mark), str_join(('the summary of ', (undefined(name='id') if l_0_id is missing else l_0_id), ', written when it completed', ))))
    yield '# '
    yield str((undefined(name='id') if l_0_id is missing else l_0_id))
    yield ': '
    yield str((undefined(name='title') if l_0_title is missing else l_0_title))
    yield '\n'
    for l_1_name in (undefined(name='kept') if l_0_kept is missing else l_0_kept):
        _loop_vars = {}
        pass
        yield '\n> Kept as written before wfs wrote this summary: ['
        yield str(l_1_name)
        yield '](./'
        yield str(l_1_name)
        yield ')\n'
    l_1_name = missing
    yield '\n- **Status**: completed\n- **Agent**: '
    yield str(((undefined(name='agent') if l_0_agent is missing else l_0_agent) or '—'))
    yield '\n\n## Steps\n| Step | Name | Outcome | Time |\n|---|---|---|---|\n'
    for l_1_step in (undefined(name='steps') if l_0_steps is missing else l_0_steps):
        _loop_vars = {}
        pass
        yield '| '
        yield str(environment.getattr(l_1_step, 'key'))
        yield ' | '
        yield str(t_1(environment.getattr(l_1_step, 'name')))
        yield ' | '
        yield str(environment.getattr(l_1_step, 'status'))
        if context.call(environment.getattr(l_1_step, 'get'), 'how', _loop_vars=_loop_vars):
            pass
            yield ' ('
            yield str(environment.getattr(l_1_step, 'how'))
            yield ')'
        yield ' | '
        yield str(t_2('%.2f', (context.call(environment.getattr(l_1_step, 'get'), 'elapsed', _loop_vars=_loop_vars) or 0)))
        yield 's |\n'
    l_1_step = missing
    yield '\n## Outputs for Dependent Tasks\n'
    t_3 = 1
    for l_1_output in (undefined(name='outputs') if l_0_outputs is missing else l_0_outputs):
        _loop_vars = {}
        pass
        yield '\n### `'
        yield str(environment.getattr(l_1_output, 'name'))
        yield '`\n'
        yield str(environment.getattr(l_1_output, 'fence'))
        yield 'text\n'
        yield str(environment.getattr(l_1_output, 'value'))
        yield '\n'
        yield str(environment.getattr(l_1_output, 'fence'))
        yield '\n'
        if environment.getattr(l_1_output, 'link'):
            pass
            yield '… cut here; the whole output is in ['
            yield str(environment.getattr(l_1_output, 'link'))
            yield ']('
            yield str(environment.getattr(l_1_output, 'link'))
            yield ') (kept with the run record, not committed).\n'
        t_3 = 0
    l_1_output = missing
    if t_3:
        pass
        yield '_This task bound no outputs._\n'
    yield '\n## Files Changed\n'
    t_4 = 1
    for l_1_path in (undefined(name='changed') if l_0_changed is missing else l_0_changed):
        _loop_vars = {}
        pass
        yield '- `'
        yield str(l_1_path)
        yield '`\n'
        t_4 = 0
    l_1_path = missing
    if t_4:
        pass
        yield '_None detected (or not a git repository)._\n'

blocks = {}
debug_info = '7=31&8=37&9=39&10=43&12=47&16=53&21=55&22=59&26=75&28=79&29=81&30=83&31=85&32=87&33=90&40=101&41=105'