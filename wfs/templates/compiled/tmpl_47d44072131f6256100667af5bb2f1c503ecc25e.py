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
    l_0_task_context = resolve('task_context')
    l_0_value_text = resolve('value_text')
    l_0_fix = resolve('fix')
    l_0_steps = resolve('steps')
    l_0_checkpoints = resolve('checkpoints')
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
    if context.call(environment.getattr((undefined(name='task_context') if l_0_task_context is missing else l_0_task_context), 'get'), 'description'):
        pass
        yield '\n'
        yield str(context.call((undefined(name='value_text') if l_0_value_text is missing else l_0_value_text), environment.getattr((undefined(name='task_context') if l_0_task_context is missing else l_0_task_context), 'description')))
        yield '\n'
    if (undefined(name='fix') if l_0_fix is missing else l_0_fix):
        pass
        yield '\n## Fix '
        yield str(environment.getattr((undefined(name='fix') if l_0_fix is missing else l_0_fix), 'iteration'))
        yield ' of '
        yield str(environment.getattr((undefined(name='fix') if l_0_fix is missing else l_0_fix), 'of'))
        yield ': '
        yield str(environment.getattr((undefined(name='fix') if l_0_fix is missing else l_0_fix), 'step'))
        yield ' failed\n\n'
        if context.call(environment.getattr((undefined(name='fix') if l_0_fix is missing else l_0_fix), 'get'), 'check'):
            pass
            yield 'Check ('
            yield str((str_join((environment.getattr((undefined(name='fix') if l_0_fix is missing else l_0_fix), 'phase'), ', ', )) if context.call(environment.getattr((undefined(name='fix') if l_0_fix is missing else l_0_fix), 'get'), 'phase') else ''))
            yield 'must pass): '
            yield str(environment.getattr((undefined(name='fix') if l_0_fix is missing else l_0_fix), 'command'))
            yield '\n'
        else:
            pass
            yield 'Command: '
            yield str(environment.getattr((undefined(name='fix') if l_0_fix is missing else l_0_fix), 'command'))
            yield '\n'
        yield 'Error: '
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
        for l_2_field in t_8(('phase', 'validation', 'cli_prompt')):
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
        if context.call(environment.getattr(l_1_step, 'get'), 'deliverable', _loop_vars=_loop_vars):
            pass
            yield 'Deliverable: '
            yield str(environment.getattr(l_1_step, 'deliverable'))
            yield '\n'
        for l_2_check in context.call(environment.getattr(l_1_step, 'get'), 'checks', [], _loop_vars=_loop_vars):
            _loop_vars = {}
            pass
            yield 'Check after this step'
            yield str((str_join((' (', environment.getattr(l_2_check, 'phase'), ')', )) if context.call(environment.getattr(l_2_check, 'get'), 'phase', _loop_vars=_loop_vars) else ''))
            yield ', must '
            yield str(environment.getattr(l_2_check, 'must'))
            yield ': '
            yield str(environment.getattr(l_2_check, 'command'))
            yield str((str_join((' (', environment.getattr(l_2_check, 'expected_failure'), ')', )) if context.call(environment.getattr(l_2_check, 'get'), 'expected_failure', _loop_vars=_loop_vars) else ''))
            yield '\n'
        l_2_check = missing
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
            _loop_vars = {}
            pass
            yield '- '
            yield str(context.call((undefined(name='value_text') if l_0_value_text is missing else l_0_value_text), l_2_item, _loop_vars=_loop_vars))
            yield '\n'
        l_2_item = missing
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
    def t_11(fiter):
        for l_1_field in fiter:
            if context.call(environment.getattr((undefined(name='task_context') if l_0_task_context is missing else l_0_task_context), 'get'), l_1_field):
                yield l_1_field
    for l_1_field in t_11(('inherited', 'shared_context', 'analysis', 'convergence', 'files', 'cli_execution', 'execution_config', 'context_package_path')):
        _loop_vars = {}
        pass
        yield '\n## '
        yield str(t_1(t_4(context.eval_ctx, l_1_field, '_', ' ')))
        yield '\n\n'
        yield str(context.call((undefined(name='value_text') if l_0_value_text is missing else l_0_value_text), environment.getitem((undefined(name='task_context') if l_0_task_context is missing else l_0_task_context), l_1_field), _loop_vars=_loop_vars))
        yield '\n'
    l_1_field = missing
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
    def t_12(fiter):
        for (l_1_key, l_1_value) in fiter:
            if l_1_value:
                yield (l_1_key, l_1_value)
    for (l_1_key, l_1_value) in t_12(context.call(environment.getattr((undefined(name='paths') if l_0_paths is missing else l_0_paths), 'items'))):
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
    if (undefined(name='full') if l_0_full is missing else l_0_full):
        pass
        yield "\nwfs started you with this brief on stdin and waits for your answer on stdout: print it\nthere and nothing else. Do not run `wfs execute`, nor change wfs's own files under\n`.workflow/` (its JSON and views): wfs records your answer and goes on.\n"

blocks = {}
debug_info = '7=55&9=59&10=62&14=69&16=72&18=74&20=77&22=83&23=86&25=93&27=96&28=98&30=106&31=108&32=112&37=117&38=119&40=123&41=127&42=134&44=139&45=146&47=151&48=158&49=160&50=164&53=168&54=171&56=173&57=176&59=178&60=182&63=192&65=196&67=198&69=201&71=209&73=211&74=215&77=219&81=222&82=226&85=233&87=241&89=243&91=246&95=249&96=252&97=255&99=259&102=264&106=273&110=276&111=279&112=282&113=284&114=287&116=294&118=298&126=302&127=310&129=315&131=318&132=320&134=323&140=326&141=328'