from jinja2.runtime import LoopContext, Macro, Markup, Namespace, TemplateNotFound, TemplateReference, TemplateRuntimeError, Undefined, escape, identity, internalcode, markup_join, missing, str_join
name = 'brief.md.j2'

def root(context, missing=missing):
    resolve = context.resolve_or_missing
    undefined = environment.undefined
    concat = environment.concat
    cond_expr_undefined = Undefined
    if 0: yield None
    l_0_task = resolve('task')
    l_0_workflow = resolve('workflow')
    l_0_fix = resolve('fix')
    l_0_steps = resolve('steps')
    l_0_checkpoints = resolve('checkpoints')
    l_0_task_context = resolve('task_context')
    l_0_outputs = resolve('outputs')
    l_0_dependencies = resolve('dependencies')
    l_0_paths = resolve('paths')
    l_0_agent = resolve('agent')
    l_0_full = resolve('full')
    l_0_contract = resolve('contract')
    try:
        t_1 = environment.filters['capitalize']
    except KeyError:
        @internalcode
        def t_1(*unused):
            raise TemplateRuntimeError("No filter named 'capitalize' found.")
    try:
        t_2 = environment.filters['join']
    except KeyError:
        @internalcode
        def t_2(*unused):
            raise TemplateRuntimeError("No filter named 'join' found.")
    try:
        t_3 = environment.filters['length']
    except KeyError:
        @internalcode
        def t_3(*unused):
            raise TemplateRuntimeError("No filter named 'length' found.")
    try:
        t_4 = environment.filters['replace']
    except KeyError:
        @internalcode
        def t_4(*unused):
            raise TemplateRuntimeError("No filter named 'replace' found.")
    try:
        t_5 = environment.tests['none']
    except KeyError:
        @internalcode
        def t_5(*unused):
            raise TemplateRuntimeError("No test named 'none' found.")
    pass
    yield '# '
    yield str(context.call(environment.getattr((undefined(name='task') if l_0_task is missing else l_0_task), 'get'), 'id'))
    yield ': '
    yield str(context.call(environment.getattr((undefined(name='task') if l_0_task is missing else l_0_task), 'get'), 'title'))
    yield '\n\n'
    if environment.getattr((undefined(name='workflow') if l_0_workflow is missing else l_0_workflow), 'session'):
        pass
        yield 'Session '
        yield str(environment.getattr((undefined(name='workflow') if l_0_workflow is missing else l_0_workflow), 'session'))
        yield ', phase '
        yield str(environment.getattr((undefined(name='workflow') if l_0_workflow is missing else l_0_workflow), 'phase'))
        yield '.\n'
    else:
        pass
        yield 'No session: a task run on its own.\n'
    if (undefined(name='fix') if l_0_fix is missing else l_0_fix):
        pass
        yield '\n## Fix '
        yield str(environment.getattr((undefined(name='fix') if l_0_fix is missing else l_0_fix), 'iteration'))
        yield ' of '
        yield str(environment.getattr((undefined(name='fix') if l_0_fix is missing else l_0_fix), 'of'))
        yield ': '
        yield str(environment.getattr((undefined(name='fix') if l_0_fix is missing else l_0_fix), 'step'))
        yield ' failed\n\nCommand: '
        yield str(environment.getattr((undefined(name='fix') if l_0_fix is missing else l_0_fix), 'command'))
        yield '\nError: '
        yield str(environment.getattr((undefined(name='fix') if l_0_fix is missing else l_0_fix), 'error'))
        yield '\n'
        def t_6(fiter):
            for l_1_stream in fiter:
                if context.call(environment.getattr((undefined(name='fix') if l_0_fix is missing else l_0_fix), 'get'), l_1_stream):
                    yield l_1_stream
        for l_1_stream in t_6(('stdout', 'stderr')):
            _loop_vars = {}
            pass
            yield '\n'
            yield str(l_1_stream)
            yield ' (last lines):\n'
            for l_2_line in environment.getitem((undefined(name='fix') if l_0_fix is missing else l_0_fix), l_1_stream):
                _loop_vars = {}
                pass
                yield '    '
                yield str(l_2_line)
                yield '\n'
            l_2_line = missing
        l_1_stream = missing
    yield '\n## To do'
    yield str(('' if (t_3((undefined(name='steps') if l_0_steps is missing else l_0_steps)) == 1) else ', in order'))
    yield '\n'
    for l_1_step in (undefined(name='steps') if l_0_steps is missing else l_0_steps):
        _loop_vars = {}
        pass
        yield '\n### '
        yield str(environment.getattr(l_1_step, 'key'))
        yield ': '
        yield str(environment.getattr(l_1_step, 'name'))
        yield '\n'
        def t_7(fiter):
            for l_2_field in fiter:
                if ((l_2_field in l_1_step) and (environment.getitem(l_1_step, l_2_field) != environment.getattr(l_1_step, 'name'))):
                    yield l_2_field
        for l_2_field in t_7(('description', 'action', 'command')):
            _loop_vars = {}
            pass
            yield str(t_1(l_2_field))
            yield ': '
            yield str(environment.getitem(l_1_step, l_2_field))
            yield '\n'
        l_2_field = missing
        def t_8(fiter):
            for l_2_field in fiter:
                if (l_2_field in l_1_step):
                    yield l_2_field
        for l_2_field in t_8(('phase', 'cli_prompt')):
            _loop_vars = {}
            pass
            yield str(t_1(t_4(context.eval_ctx, l_2_field, '_', ' ')))
            yield ': '
            yield str(environment.getitem(l_1_step, l_2_field))
            yield '\n'
        l_2_field = missing
        def t_9(fiter):
            for l_2_field in fiter:
                if context.call(environment.getattr(l_1_step, 'get'), l_2_field):
                    yield l_2_field
        for l_2_field in t_9(('modification_points', 'logic_flow', 'steps')):
            _loop_vars = {}
            pass
            yield str(t_1(t_4(context.eval_ctx, l_2_field, '_', ' ')))
            yield ':\n'
            for l_3_item in environment.getitem(l_1_step, l_2_field):
                _loop_vars = {}
                pass
                yield '  - '
                yield str(l_3_item)
                yield '\n'
            l_3_item = missing
        l_2_field = missing
        if context.call(environment.getattr(l_1_step, 'get'), 'output', _loop_vars=_loop_vars):
            pass
            yield 'Output binds to: ['
            yield str(environment.getattr(l_1_step, 'output'))
            yield ']\n'
    l_1_step = missing
    l_1_loop = missing
    for l_1_checkpoint, l_1_loop in LoopContext((undefined(name='checkpoints') if l_0_checkpoints is missing else l_0_checkpoints), undefined):
        _loop_vars = {}
        pass
        yield '\n## Partial answer '
        yield str(environment.getattr(l_1_loop, 'index'))
        yield ' (continue from it)\n\n'
        yield str(context.call(environment.getattr(l_1_checkpoint, 'rstrip'), _loop_vars=_loop_vars))
        yield '\n'
    l_1_loop = l_1_checkpoint = missing
    def t_10(fiter):
        for l_1_field in fiter:
            if context.call(environment.getattr((undefined(name='task_context') if l_0_task_context is missing else l_0_task_context), 'get'), l_1_field):
                yield l_1_field
    for l_1_field in t_10(('requirements', 'acceptance', 'focus_paths', 'target_files')):
        _loop_vars = {}
        pass
        yield '\n## '
        yield str(t_1(t_4(context.eval_ctx, l_1_field, '_', ' ')))
        yield '\n\n'
        for l_2_item in environment.getitem((undefined(name='task_context') if l_0_task_context is missing else l_0_task_context), l_1_field):
            l_2_value_text = resolve('value_text')
            _loop_vars = {}
            pass
            yield '- '
            yield str(context.call((undefined(name='value_text') if l_2_value_text is missing else l_2_value_text), l_2_item, _loop_vars=_loop_vars))
            yield '\n'
        l_2_item = l_2_value_text = missing
    l_1_field = missing
    if context.call(environment.getattr((undefined(name='task_context') if l_0_task_context is missing else l_0_task_context), 'get'), 'artifacts'):
        pass
        yield '\n## Artifacts\n\n'
        for l_1_artifact in environment.getattr((undefined(name='task_context') if l_0_task_context is missing else l_0_task_context), 'artifacts'):
            _loop_vars = {}
            pass
            yield '- '
            yield str(context.call(environment.getattr(l_1_artifact, 'get'), 'type', 'artifact', _loop_vars=_loop_vars))
            yield ': '
            yield str(context.call(environment.getattr(l_1_artifact, 'get'), 'path', _loop_vars=_loop_vars))
            yield ' ('
            yield str((t_2(context.eval_ctx, (context.call(environment.getattr(l_1_artifact, 'get'), 'files', _loop_vars=_loop_vars) or []), ', ') or 'no file yet'))
            yield ')\n'
        l_1_artifact = missing
    if (undefined(name='outputs') if l_0_outputs is missing else l_0_outputs):
        pass
        yield '\n## Gathered so far\n\n'
        for (l_1_name, l_1_output) in context.call(environment.getattr((undefined(name='outputs') if l_0_outputs is missing else l_0_outputs), 'items')):
            _loop_vars = {}
            pass
            if ('text' in l_1_output):
                pass
                yield '### ['
                yield str(l_1_name)
                yield '] (from '
                yield str(environment.getitem(l_1_output, 'from'))
                yield ')\n\n'
                yield str(context.call(environment.getattr(environment.getattr(l_1_output, 'text'), 'rstrip'), _loop_vars=_loop_vars))
                yield '\n\n'
            else:
                pass
                yield '### ['
                yield str(l_1_name)
                yield '] (from '
                yield str(environment.getitem(l_1_output, 'from'))
                yield '): '
                yield str(environment.getattr(l_1_output, 'bytes'))
                yield ' bytes, in '
                yield str(environment.getattr(l_1_output, 'path'))
                yield '\n'
        l_1_name = l_1_output = missing
    if (undefined(name='dependencies') if l_0_dependencies is missing else l_0_dependencies):
        pass
        yield '\n## Tasks this one depends on\n\n'
        for l_1_dependency in (undefined(name='dependencies') if l_0_dependencies is missing else l_0_dependencies):
            _loop_vars = {}
            pass
            if t_5(context.call(environment.getattr(l_1_dependency, 'get'), 'summary', _loop_vars=_loop_vars)):
                pass
                yield '- '
                yield str(environment.getattr(l_1_dependency, 'task'))
                yield ': no summary\n'
            elif (not (undefined(name='full') if l_0_full is missing else l_0_full)):
                pass
                yield '- '
                yield str(environment.getattr(l_1_dependency, 'task'))
                yield ': '
                yield str(environment.getattr(l_1_dependency, 'summary'))
                yield '\n'
            else:
                pass
                yield '### '
                yield str(environment.getattr(l_1_dependency, 'task'))
                yield ' ('
                yield str(environment.getattr(l_1_dependency, 'summary'))
                yield ')\n\n'
                yield str(context.call(environment.getattr(environment.getattr(l_1_dependency, 'text'), 'rstrip'), _loop_vars=_loop_vars))
                yield '\n\n'
        l_1_dependency = missing
    yield '\n## Paths\n\n'
    def t_11(fiter):
        for (l_1_key, l_1_value) in fiter:
            if l_1_value:
                yield (l_1_key, l_1_value)
    for (l_1_key, l_1_value) in t_11(context.call(environment.getattr((undefined(name='paths') if l_0_paths is missing else l_0_paths), 'items'))):
        _loop_vars = {}
        pass
        yield '- '
        yield str(l_1_key)
        yield ': '
        yield str(l_1_value)
        yield '\n'
    l_1_key = l_1_value = missing
    if (undefined(name='agent') if l_0_agent is missing else l_0_agent):
        pass
        yield '\n## Your role: '
        yield str(environment.getattr((undefined(name='agent') if l_0_agent is missing else l_0_agent), 'name'))
        yield '\n'
        if ((undefined(name='full') if l_0_full is missing else l_0_full) and context.call(environment.getattr((undefined(name='agent') if l_0_agent is missing else l_0_agent), 'get'), 'definition')):
            pass
            yield '\n'
            yield str(context.call(environment.getattr(environment.getattr((undefined(name='agent') if l_0_agent is missing else l_0_agent), 'definition'), 'rstrip')))
            yield '\n'
    yield '\n## How to answer\n\n'
    yield str((undefined(name='contract') if l_0_contract is missing else l_0_contract))
    yield '\n'

blocks = {}
debug_info = '6=54&8=58&9=61&13=68&15=71&17=77&18=79&19=81&21=89&22=91&23=95&28=100&29=102&31=106&32=110&33=117&35=122&36=129&38=134&39=141&40=143&41=147&44=151&45=154&48=158&50=162&52=164&54=167&56=175&58=177&59=182&62=186&66=189&67=193&70=200&74=203&75=206&76=209&78=213&81=218&85=227&89=230&90=233&91=236&92=238&93=241&95=248&97=252&105=256&106=264&108=269&110=272&111=274&113=277&119=280'