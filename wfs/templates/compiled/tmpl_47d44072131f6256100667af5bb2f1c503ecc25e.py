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
        t_4 = environment.filters['list']
    except KeyError:
        @internalcode
        def t_4(*unused):
            raise TemplateRuntimeError("No filter named 'list' found.")
    try:
        t_5 = environment.filters['reject']
    except KeyError:
        @internalcode
        def t_5(*unused):
            raise TemplateRuntimeError("No filter named 'reject' found.")
    try:
        t_6 = environment.filters['replace']
    except KeyError:
        @internalcode
        def t_6(*unused):
            raise TemplateRuntimeError("No filter named 'replace' found.")
    try:
        t_7 = environment.tests['mapping']
    except KeyError:
        @internalcode
        def t_7(*unused):
            raise TemplateRuntimeError("No test named 'mapping' found.")
    try:
        t_8 = environment.tests['none']
    except KeyError:
        @internalcode
        def t_8(*unused):
            raise TemplateRuntimeError("No test named 'none' found.")
    try:
        t_9 = environment.tests['sequence']
    except KeyError:
        @internalcode
        def t_9(*unused):
            raise TemplateRuntimeError("No test named 'sequence' found.")
    try:
        t_10 = environment.tests['string']
    except KeyError:
        @internalcode
        def t_10(*unused):
            raise TemplateRuntimeError("No test named 'string' found.")
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
        def t_11(fiter):
            for l_1_stream in fiter:
                if context.call(environment.getattr((undefined(name='fix') if l_0_fix is missing else l_0_fix), 'get'), l_1_stream):
                    yield l_1_stream
        for l_1_stream in t_11(('stdout', 'stderr')):
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
        def t_12(fiter):
            for l_2_field in fiter:
                if ((l_2_field in l_1_step) and (environment.getitem(l_1_step, l_2_field) != environment.getattr(l_1_step, 'name'))):
                    yield l_2_field
        for l_2_field in t_12(('description', 'action', 'command')):
            _loop_vars = {}
            pass
            yield str(t_1(l_2_field))
            yield ': '
            yield str(environment.getitem(l_1_step, l_2_field))
            yield '\n'
        l_2_field = missing
        def t_13(fiter):
            for l_2_field in fiter:
                if (l_2_field in l_1_step):
                    yield l_2_field
        for l_2_field in t_13(('phase', 'validation', 'cli_prompt')):
            _loop_vars = {}
            pass
            yield str(t_1(t_6(context.eval_ctx, l_2_field, '_', ' ')))
            yield ': '
            yield str(environment.getitem(l_1_step, l_2_field))
            yield '\n'
        l_2_field = missing
        def t_14(fiter):
            for l_2_field in fiter:
                if context.call(environment.getattr(l_1_step, 'get'), l_2_field):
                    yield l_2_field
        for l_2_field in t_14(('modification_points', 'logic_flow', 'steps')):
            _loop_vars = {}
            pass
            yield str(t_1(t_6(context.eval_ctx, l_2_field, '_', ' ')))
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
        for (l_2_name, l_2_value) in context.call(environment.getattr(context.call(environment.getattr(l_1_step, 'get'), 'fields', {}, _loop_vars=_loop_vars), 'items'), _loop_vars=_loop_vars):
            _loop_vars = {}
            pass
            yield str(l_2_name)
            yield ': '
            yield str(context.call((undefined(name='value_text') if l_0_value_text is missing else l_0_value_text), l_2_value, _loop_vars=_loop_vars))
            yield '\n'
        l_2_name = l_2_value = missing
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
    def t_15(fiter):
        for l_1_field in fiter:
            if context.call(environment.getattr((undefined(name='task_context') if l_0_task_context is missing else l_0_task_context), 'get'), l_1_field):
                yield l_1_field
    for l_1_field in t_15(('requirements', 'acceptance', 'focus_paths', 'target_files')):
        _loop_vars = {}
        pass
        yield '\n## '
        yield str(t_1(t_6(context.eval_ctx, l_1_field, '_', ' ')))
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
            def t_16(fiter):
                for (l_2_key, l_2_value) in fiter:
                    if (l_2_key not in ('type', 'path', 'files')):
                        yield (l_2_key, l_2_value)
            for (l_2_key, l_2_value) in t_16(context.call(environment.getattr(l_1_artifact, 'items'), _loop_vars=_loop_vars)):
                _loop_vars = {}
                pass
                yield '  '
                yield str(l_2_key)
                yield ': '
                yield str(context.call((undefined(name='value_text') if l_0_value_text is missing else l_0_value_text), l_2_value, _loop_vars=_loop_vars))
                yield '\n'
            l_2_key = l_2_value = missing
        l_1_artifact = missing
    def t_17(fiter):
        for l_1_field in fiter:
            if context.call(environment.getattr((undefined(name='task_context') if l_0_task_context is missing else l_0_task_context), 'get'), l_1_field):
                yield l_1_field
    for l_1_field in t_17(('inherited', 'shared_context', 'analysis', 'convergence', 'files', 'cli_execution', 'execution_config', 'context_package_path')):
        _loop_vars = {}
        pass
        yield '\n## '
        yield str(t_1(t_6(context.eval_ctx, l_1_field, '_', ' ')))
        yield '\n\n'
        yield str(context.call((undefined(name='value_text') if l_0_value_text is missing else l_0_value_text), environment.getitem((undefined(name='task_context') if l_0_task_context is missing else l_0_task_context), l_1_field), _loop_vars=_loop_vars))
        yield '\n'
    l_1_field = missing
    for (l_1_name, l_1_value) in context.call(environment.getattr(context.call(environment.getattr((undefined(name='task_context') if l_0_task_context is missing else l_0_task_context), 'get'), 'fields', {}), 'items')):
        _loop_vars = {}
        pass
        yield '\n## '
        yield str(l_1_name)
        yield '\n\n'
        if t_10(l_1_value):
            pass
            yield str(context.call(environment.getattr(l_1_value, 'rstrip'), _loop_vars=_loop_vars))
            yield '\n'
        elif t_7(l_1_value):
            pass
            for (l_2_key, l_2_item) in context.call(environment.getattr(l_1_value, 'items'), _loop_vars=_loop_vars):
                _loop_vars = {}
                pass
                if t_10(l_2_item):
                    pass
                    yield '- '
                    yield str(l_2_key)
                    yield ': '
                    yield str(l_2_item)
                    yield '\n'
                elif ((t_9(l_2_item) and (not t_7(l_2_item))) and (t_3(t_4(context.eval_ctx, t_5(context, l_2_item, 'string'))) == 0)):
                    pass
                    yield '- '
                    yield str(l_2_key)
                    yield ':\n'
                    for l_3_entry in l_2_item:
                        _loop_vars = {}
                        pass
                        yield '  - '
                        yield str(l_3_entry)
                        yield '\n'
                    l_3_entry = missing
                else:
                    pass
                    yield '- '
                    yield str(l_2_key)
                    yield ': '
                    yield str(context.call((undefined(name='value_text') if l_0_value_text is missing else l_0_value_text), l_2_item, _loop_vars=_loop_vars))
                    yield '\n'
            l_2_key = l_2_item = missing
        elif ((t_9(l_1_value) and (not t_7(l_1_value))) and (t_3(t_4(context.eval_ctx, t_5(context, l_1_value, 'string'))) == 0)):
            pass
            for l_2_item in l_1_value:
                _loop_vars = {}
                pass
                yield '- '
                yield str(l_2_item)
                yield '\n'
            l_2_item = missing
        else:
            pass
            yield str(context.call((undefined(name='value_text') if l_0_value_text is missing else l_0_value_text), l_1_value, _loop_vars=_loop_vars))
            yield '\n'
    l_1_name = l_1_value = missing
    if context.call(environment.getattr((undefined(name='task_context') if l_0_task_context is missing else l_0_task_context), 'get'), 'verify'):
        pass
        yield '\n## Checks for you to verify (words, not commands: wfs runs none of these)\n\n'
        for l_1_check in environment.getattr((undefined(name='task_context') if l_0_task_context is missing else l_0_task_context), 'verify'):
            _loop_vars = {}
            pass
            yield '- '
            yield str(environment.getattr(l_1_check, 'text'))
            yield ' ('
            yield str(environment.getattr(l_1_check, 'from'))
            yield ')\n'
        l_1_check = missing
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
            if t_8(context.call(environment.getattr(l_1_dependency, 'get'), 'summary', _loop_vars=_loop_vars)):
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
    def t_18(fiter):
        for (l_1_key, l_1_value) in fiter:
            if l_1_value:
                yield (l_1_key, l_1_value)
    for (l_1_key, l_1_value) in t_18(context.call(environment.getattr((undefined(name='paths') if l_0_paths is missing else l_0_paths), 'items'))):
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
debug_info = '7=85&9=89&10=92&14=99&16=102&18=104&20=107&22=113&23=116&25=123&27=126&28=128&30=136&31=138&32=142&37=147&38=149&40=153&41=157&42=164&44=169&45=176&47=181&48=188&49=190&50=194&53=198&54=201&56=203&57=206&59=208&60=211&62=216&63=220&66=230&68=234&70=236&72=239&74=247&76=249&77=253&80=257&84=260&85=264&86=270&87=278&91=284&93=292&95=294&98=297&100=301&102=303&103=305&104=307&105=309&106=312&107=315&108=319&109=322&110=324&111=328&114=334&117=339&118=341&119=345&122=350&125=353&129=356&130=360&133=365&137=368&138=371&139=374&141=378&144=383&148=392&152=395&153=398&154=401&155=403&156=406&158=413&160=417&168=421&169=429&171=434&173=437&174=439&176=442&182=445&183=447'