from jinja2.runtime import LoopContext, Macro, Markup, Namespace, TemplateNotFound, TemplateReference, TemplateRuntimeError, Undefined, escape, identity, internalcode, markup_join, missing, str_join
name = 'plan-brief.md.j2'

def root(context, missing=missing):
    resolve = context.resolve_or_missing
    undefined = environment.undefined
    concat = environment.concat
    cond_expr_undefined = Undefined
    if 0: yield None
    l_0_request = resolve('request')
    l_0_planner = resolve('planner')
    l_0_repo = resolve('repo')
    l_0_sessions = resolve('sessions')
    l_0_existing = resolve('existing')
    l_0_example = resolve('example')
    l_0_parts = missing
    try:
        t_1 = environment.filters['join']
    except KeyError:
        @internalcode
        def t_1(*unused):
            raise TemplateRuntimeError("No filter named 'join' found.")
    try:
        t_2 = environment.tests['none']
    except KeyError:
        @internalcode
        def t_2(*unused):
            raise TemplateRuntimeError("No test named 'none' found.")
    pass
    l_0_parts = context.vars['parts'] = environment.get_template('repository.md.j2', 'plan-brief.md.j2')._get_default_module(context)
    context.exported_vars.discard('parts')
    yield '# Plan: '
    yield str(environment.getattr((undefined(name='request') if l_0_request is missing else l_0_request), 'topic'))
    yield '\n\nYou are the planning agent of wfs ('
    yield str((undefined(name='planner') if l_0_planner is missing else l_0_planner))
    yield '). Turn the request below into a wfs\nplan: a JSON document of tasks that agents, and wfs itself, will carry out one after\nthe other in this repository. Study the code the request touches first: where it\nlives, how it is built and tested.\n\n## The request\n\n'
    if (not t_2(environment.getattr((undefined(name='request') if l_0_request is missing else l_0_request), 'document'))):
        pass
        yield 'The requirements document `'
        yield str(environment.getattr((undefined(name='request') if l_0_request is missing else l_0_request), 'document_name'))
        yield '`:\n\n~~~~markdown\n'
        yield str(context.call(environment.getattr(environment.getattr((undefined(name='request') if l_0_request is missing else l_0_request), 'document'), 'rstrip')))
        yield '\n~~~~\n'
    else:
        pass
        yield str(environment.getattr((undefined(name='request') if l_0_request is missing else l_0_request), 'topic'))
        yield '\n'
    yield '\n'
    yield str(context.call(environment.getattr((undefined(name='parts') if l_0_parts is missing else l_0_parts), 'repository'), (undefined(name='repo') if l_0_repo is missing else l_0_repo)))
    yield '\n## The sessions of this project\n\n'
    t_3 = 1
    for l_1_row in (undefined(name='sessions') if l_0_sessions is missing else l_0_sessions):
        _loop_vars = {}
        pass
        yield '- '
        yield str(environment.getattr(l_1_row, 'id'))
        yield ' ('
        yield str(environment.getattr(l_1_row, 'status'))
        yield ')'
        if environment.getattr(l_1_row, 'topic'):
            pass
            yield ': '
            yield str(environment.getattr(l_1_row, 'topic'))
        yield '; tasks: '
        yield str((t_1(context.eval_ctx, environment.getattr(l_1_row, 'tasks'), ', ') if environment.getattr(l_1_row, 'tasks') else 'none'))
        yield '\n'
        t_3 = 0
    l_1_row = missing
    if t_3:
        pass
        yield 'None yet: this plan makes the first.\n'
    if (undefined(name='existing') if l_0_existing is missing else l_0_existing):
        pass
        yield '\nThe session of this topic, '
        yield str(environment.getattr((undefined(name='existing') if l_0_existing is missing else l_0_existing), 'id'))
        yield ', exists: your plan updates it. A task whose\nid it has replaces that task (keeping its status); the others are added. Read its\ntasks with `wfs task show ID --session '
        yield str(environment.getattr((undefined(name='existing') if l_0_existing is missing else l_0_existing), 'id'))
        yield '` before you plan.\n'
    yield '\n'
    yield str(context.call(environment.getattr((undefined(name='parts') if l_0_parts is missing else l_0_parts), 'formats'), (undefined(name='example') if l_0_example is missing else l_0_example)))
    yield '\n## Your answer\n\nAnswer with the whole plan document, `{"overview": ..., "requirements": [...], "tasks":\n[...]}`, in one fenced ```json block. Or write it to a file and put that file\'s path\n(relative to the project root) alone on the last line of your answer.\n\nwfs validates the plan and writes it only when it is valid, all of it. When it is\nrefused, you get the problems, one per line as `file#/json/pointer: rule: message` (the\npointer names the task and the field, such as `plan.json#/tasks/0/context/focus_paths/0`),\nand answer again with the whole corrected plan. Do not write the files under\n`.workflow/` yourself.\n'

blocks = {}
debug_info = '6=30&7=33&9=35&16=37&17=40&20=42&23=46&26=49&29=52&30=56&34=72&36=75&38=77&41=80'