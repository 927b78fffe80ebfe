from jinja2.runtime import LoopContext, Macro, Markup, Namespace, TemplateNotFound, TemplateReference, TemplateRuntimeError, Undefined, escape, identity, internalcode, markup_join, missing, str_join
name = 'task.txt.j2'

def root(context, missing=missing):
    resolve = context.resolve_or_missing
    undefined = environment.undefined
    concat = environment.concat
    cond_expr_undefined = Undefined
    if 0: yield None
    l_0_card = resolve('card')
    try:
        t_1 = environment.filters['join']
    except KeyError:
        @internalcode
        def t_1(*unused):
            raise TemplateRuntimeError("No filter named 'join' found.")
    pass
    yield str(environment.getattr((undefined(name='card') if l_0_card is missing else l_0_card), 'id'))
    yield '  '
    yield str(environment.getattr((undefined(name='card') if l_0_card is missing else l_0_card), 'title'))
    yield '\n'
    if environment.getattr((undefined(name='card') if l_0_card is missing else l_0_card), 'children'):
        pass
        yield 'Status:      '
        yield str(environment.getattr((undefined(name='card') if l_0_card is missing else l_0_card), 'status'))
        yield ' (derived from its subtasks)\n'
    elif environment.getattr((undefined(name='card') if l_0_card is missing else l_0_card), 'ready'):
        pass
        yield 'Status:      '
        yield str(environment.getattr((undefined(name='card') if l_0_card is missing else l_0_card), 'status'))
        yield ', ready: `wfs execute '
        yield str(environment.getattr((undefined(name='card') if l_0_card is missing else l_0_card), 'id'))
        yield '` runs it\n'
    elif (environment.getattr((undefined(name='card') if l_0_card is missing else l_0_card), 'status') == 'pending'):
        pass
        yield 'Status:      '
        yield str(environment.getattr((undefined(name='card') if l_0_card is missing else l_0_card), 'status'))
        yield ', not ready\n'
    else:
        pass
        yield 'Status:      '
        yield str(environment.getattr((undefined(name='card') if l_0_card is missing else l_0_card), 'status'))
        yield '\n'
    for l_1_line in environment.getattr((undefined(name='card') if l_0_card is missing else l_0_card), 'why'):
        _loop_vars = {}
        pass
        yield '             '
        yield str(l_1_line)
        yield '\n'
    l_1_line = missing
    yield 'Type:        '
    yield str(environment.getattr((undefined(name='card') if l_0_card is missing else l_0_card), 'type'))
    yield '\nAgent:       '
    yield str(environment.getattr((undefined(name='card') if l_0_card is missing else l_0_card), 'agent'))
    yield '\n'
    if environment.getattr((undefined(name='card') if l_0_card is missing else l_0_card), 'parent'):
        pass
        yield 'Parent:      '
        yield str(environment.getattr((undefined(name='card') if l_0_card is missing else l_0_card), 'parent'))
        yield '\n'
    if environment.getattr((undefined(name='card') if l_0_card is missing else l_0_card), 'children'):
        pass
        yield 'Subtasks:    '
        l_1_loop = missing
        for l_1_c, l_1_loop in LoopContext(environment.getattr((undefined(name='card') if l_0_card is missing else l_0_card), 'children'), undefined):
            _loop_vars = {}
            pass
            yield str(environment.getattr(l_1_c, 'id'))
            yield ' ('
            yield str(environment.getattr(l_1_c, 'status'))
            yield ')'
            yield str((', ' if (not environment.getattr(l_1_loop, 'last')) else cond_expr_undefined("the inline if-expression on line 22 in 'task.txt.j2' evaluated to false and no else section was defined.")))
        l_1_loop = l_1_c = missing
        yield '\n'
    yield 'Depends on:  '
    l_1_loop = missing
    t_2 = 1
    for l_1_d, l_1_loop in LoopContext(environment.getattr((undefined(name='card') if l_0_card is missing else l_0_card), 'dependencies'), undefined):
        _loop_vars = {}
        pass
        yield str(environment.getattr(l_1_d, 'id'))
        yield ' ('
        yield str(environment.getattr(l_1_d, 'status'))
        yield ')'
        yield str((', ' if (not environment.getattr(l_1_loop, 'last')) else cond_expr_undefined("the inline if-expression on line 25 in 'task.txt.j2' evaluated to false and no else section was defined.")))
        t_2 = 0
    l_1_loop = l_1_d = missing
    if t_2:
        pass
        yield '-'
    yield '\n'
    if environment.getattr((undefined(name='card') if l_0_card is missing else l_0_card), 'focus_paths'):
        pass
        yield 'Focus paths: '
        yield str(t_1(context.eval_ctx, environment.getattr((undefined(name='card') if l_0_card is missing else l_0_card), 'focus_paths'), ', '))
        yield '\n'
    if environment.getattr((undefined(name='card') if l_0_card is missing else l_0_card), 'steps_error'):
        pass
        yield 'Steps:       cannot be run as written: '
        yield str(environment.getattr((undefined(name='card') if l_0_card is missing else l_0_card), 'steps_error'))
        yield '\n'
    elif environment.getattr((undefined(name='card') if l_0_card is missing else l_0_card), 'steps'):
        pass
        yield 'Steps:\n'
        l_1_loop = missing
        for l_1_step, l_1_loop in LoopContext(environment.getattr((undefined(name='card') if l_0_card is missing else l_0_card), 'steps'), undefined):
            _loop_vars = {}
            pass
            yield '  '
            yield str(environment.getattr(l_1_loop, 'index'))
            yield '. '
            yield str(environment.getattr(l_1_step, 'name'))
            yield '  ('
            yield str(environment.getattr(l_1_step, 'key'))
            yield ')\n'
            for l_2_part in environment.getattr(l_1_step, 'parts'):
                _loop_vars = {}
                pass
                yield '       '
                yield str(environment.getattr(l_2_part, 'kind'))
                yield ': '
                yield str(environment.getattr(l_2_part, 'text'))
                yield '\n'
            l_2_part = missing
            for l_2_check in environment.getattr(l_1_step, 'checks'):
                _loop_vars = {}
                pass
                yield '       check: '
                yield str(l_2_check)
                yield '\n'
            l_2_check = missing
        l_1_loop = l_1_step = missing
    if environment.getattr((undefined(name='card') if l_0_card is missing else l_0_card), 'checks'):
        pass
        yield 'Checks:\n'
        for l_1_step in environment.getattr((undefined(name='card') if l_0_card is missing else l_0_card), 'checks'):
            _loop_vars = {}
            pass
            for l_2_part in environment.getattr(l_1_step, 'parts'):
                _loop_vars = {}
                pass
                yield '  - '
                yield str(environment.getattr(l_2_part, 'kind'))
                yield ': '
                yield str(environment.getattr(l_2_part, 'text'))
                yield ' (must pass)\n'
            l_2_part = missing
        l_1_step = missing
    if environment.getattr((undefined(name='card') if l_0_card is missing else l_0_card), 'acceptance'):
        pass
        yield 'Acceptance:\n'
        for l_1_item in environment.getattr((undefined(name='card') if l_0_card is missing else l_0_card), 'acceptance'):
            _loop_vars = {}
            pass
            yield '  - '
            yield str(l_1_item)
            yield '\n'
        l_1_item = missing

blocks = {}
debug_info = '3=18&4=22&5=25&6=27&7=30&8=34&9=37&11=42&13=44&14=48&16=52&17=54&18=56&19=59&21=61&22=65&25=78&27=92&28=95&30=97&31=100&32=102&34=106&35=110&36=116&37=120&39=125&40=129&44=133&46=136&47=139&48=143&52=149&54=152&55=156'