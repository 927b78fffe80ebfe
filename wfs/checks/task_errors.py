VERSION = "2.22.3"
from decimal import Decimal
import re
from fastjsonschema import JsonSchemaValueException, JsonSchemaValuesException


REGEX_PATTERNS = {
    '\\S': re.compile('\\S'),
    '^exit_code:': re.compile('^exit_code:'),
    '^exit_code:\\s*-?[0-9]+\\s*(?![\\s\\S])': re.compile('^exit_code:\\s*-?[0-9]+\\s*(?![\\s\\S])'),
    '^contains:': re.compile('^contains:'),
    '^contains:[\\s\\S]': re.compile('^contains:[\\s\\S]'),
    '^(exit_code|contains|regex):': re.compile('^(exit_code|contains|regex):'),
    '^~': re.compile('^~'),
    '^\\./': re.compile('^\\./'),
    '(^|[/\\\\])\\.\\.([/\\\\]|(?![\\s\\S]))': re.compile('(^|[/\\\\])\\.\\.([/\\\\]|(?![\\s\\S]))'),
    '\\$\\{[^}]*\\}|\\{\\{[^}]*\\}\\}|\\{[^},]*\\}|<[^>]*>': re.compile('\\$\\{[^}]*\\}|\\{\\{[^}]*\\}\\}|\\{[^},]*\\}|<[^>]*>'),
    '[*?{]|\\[(?!\\[?(?:\\.\\.\\.)?[A-Za-z_][A-Za-z0-9_-]*\\]\\]?(?:[/\\\\.]|(?![\\s\\S])))|(?<=[^/\\\\\\[])\\[': re.compile('[*?{]|\\[(?!\\[?(?:\\.\\.\\.)?[A-Za-z_][A-Za-z0-9_-]*\\]\\]?(?:[/\\\\.]|(?![\\s\\S])))|(?<=[^/\\\\\\[])\\['),
    '^IMPL-[0-9]+\\.[0-9]+(?![\\s\\S])': re.compile('^IMPL-[0-9]+\\.[0-9]+(?![\\s\\S])'),
    '^[^|]*[^|\\s][^|]*(\\|[^|]*[^|\\s][^|]*)+(?![\\s\\S])': re.compile('^[^|]*[^|\\s][^|]*(\\|[^|]*[^|\\s][^|]*)+(?![\\s\\S])'),
    '^\\s+IMPL-[0-9]+(\\.[0-9]+)?\\s*(?![\\s\\S])|^\\s*IMPL-[0-9]+(\\.[0-9]+)?\\s+(?![\\s\\S])': re.compile('^\\s+IMPL-[0-9]+(\\.[0-9]+)?\\s*(?![\\s\\S])|^\\s*IMPL-[0-9]+(\\.[0-9]+)?\\s+(?![\\s\\S])'),
    '^IMPL-[0-9]+(\\.[0-9]+){2,}(?![\\s\\S])': re.compile('^IMPL-[0-9]+(\\.[0-9]+){2,}(?![\\s\\S])'),
    '^IMPL-([\\s\\S]*[^A-Za-z])?[NMX]([^A-Za-z][\\s\\S]*)?(?![\\s\\S])': re.compile('^IMPL-([\\s\\S]*[^A-Za-z])?[NMX]([^A-Za-z][\\s\\S]*)?(?![\\s\\S])'),
    '^(?!IMPL-)[A-Za-z][A-Za-z0-9_]*-[0-9]+(\\.[0-9]+)*(?![\\s\\S])': re.compile('^(?!IMPL-)[A-Za-z][A-Za-z0-9_]*-[0-9]+(\\.[0-9]+)*(?![\\s\\S])'),
    '^IMPL-[0-9]': re.compile('^IMPL-[0-9]'),
    '^IMPL-[0-9]+(\\.[0-9]+)?(?![\\s\\S])': re.compile('^IMPL-[0-9]+(\\.[0-9]+)?(?![\\s\\S])')
}

NoneType = type(None)

def validate_https___wfs_dev_schemas_task_schema_json(data, custom_formats={}, name_prefix=None):
    if not isinstance(data, (dict)):
        raise JsonSchemaValueException("" + (name_prefix or "data") + " must be object")
    validate_https___wfs_dev_schemas_task_schema_json___defs_identity(data, custom_formats, (name_prefix or "data") + "")
    validate_https___wfs_dev_schemas_task_schema_json___defs_flat_places(data, custom_formats, (name_prefix or "data") + "")
    data_is_dict = isinstance(data, dict)
    if data_is_dict:
        data__missing_keys = set(['title']) - data.keys()
        if data__missing_keys:
            raise JsonSchemaValueException("" + (name_prefix or "data") + " must contain ")
    data_is_dict = isinstance(data, dict)
    if data_is_dict:
        data_keys = set(data.keys())
        if "flow_control" in data_keys:
            data_keys.remove("flow_control")
            data__flowcontrol = data["flow_control"]
            validate_https___wfs_dev_schemas_task_schema_json___defs_flow_control(data__flowcontrol, custom_formats, (name_prefix or "data") + ".flow_control")
    return data

def validate_https___wfs_dev_schemas_task_schema_json___defs_flow_control(data, custom_formats={}, name_prefix=None):
    if not isinstance(data, (dict)):
        raise JsonSchemaValueException("" + (name_prefix or "data") + " must be object")
    data_is_dict = isinstance(data, dict)
    if data_is_dict:
        data_keys = set(data.keys())
        if "pre_analysis" in data_keys:
            data_keys.remove("pre_analysis")
            data__preanalysis = data["pre_analysis"]
            validate_https___wfs_dev_schemas_task_schema_json___defs_pre_analysis(data__preanalysis, custom_formats, (name_prefix or "data") + ".pre_analysis")
        if "implementation_approach" in data_keys:
            data_keys.remove("implementation_approach")
            data__implementationapproach = data["implementation_approach"]
            validate_https___wfs_dev_schemas_task_schema_json___defs_step_array(data__implementationapproach, custom_formats, (name_prefix or "data") + ".implementation_approach")
        if "implementation_steps" in data_keys:
            data_keys.remove("implementation_steps")
            data__implementationsteps = data["implementation_steps"]
            validate_https___wfs_dev_schemas_task_schema_json___defs_flat_steps(data__implementationsteps, custom_formats, (name_prefix or "data") + ".implementation_steps")
        if "target_files" in data_keys:
            data_keys.remove("target_files")
            data__targetfiles = data["target_files"]
            validate_https___wfs_dev_schemas_task_schema_json___defs_string_array(data__targetfiles, custom_formats, (name_prefix or "data") + ".target_files")
    return data

def validate_https___wfs_dev_schemas_task_schema_json___defs_string_array(data, custom_formats={}, name_prefix=None):
    if not isinstance(data, (list, tuple)):
        raise JsonSchemaValueException("" + (name_prefix or "data") + " must be array")
    data_is_list = isinstance(data, (list, tuple))
    if data_is_list:
        data_len = len(data)
        for data_x, data_item in enumerate(data):
            if not isinstance(data_item, (str)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + "[{data_x}]".format(**locals()) + " must be string")
    return data

def validate_https___wfs_dev_schemas_task_schema_json___defs_flat_steps(data, custom_formats={}, name_prefix=None):
    if not isinstance(data, (list, tuple)):
        raise JsonSchemaValueException("" + (name_prefix or "data") + " must be array")
    data_is_list = isinstance(data, (list, tuple))
    if data_is_list:
        data_len = len(data)
        for data_x, data_item in enumerate(data):
            validate_https___wfs_dev_schemas_task_schema_json___defs_flat_step(data_item, custom_formats, (name_prefix or "data") + "[{data_x}]".format(**locals()))
    return data

def validate_https___wfs_dev_schemas_task_schema_json___defs_flat_step(data, custom_formats={}, name_prefix=None):
    try:
        if not isinstance(data, (str)):
            raise JsonSchemaValueException("" + (name_prefix or "data") + " must be string")
    except (JsonSchemaValueException, JsonSchemaValuesException):
        if not isinstance(data, (dict)):
            raise JsonSchemaValueException("" + (name_prefix or "data") + " must be object")
        data_any_of_count1 = 0
        if not data_any_of_count1:
            try:
                data_is_dict = isinstance(data, dict)
                if data_is_dict:
                    data__missing_keys = set(['title']) - data.keys()
                    if data__missing_keys:
                        raise JsonSchemaValueException("" + (name_prefix or "data") + " must contain ")
                    data_keys = set(data.keys())
                    if "title" in data_keys:
                        data_keys.remove("title")
                        data__title = data["title"]
                        if not isinstance(data__title, (str, list, tuple)):
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".title must be string or array")
                        if isinstance(data__title, str):
                            data__title_len = len(data__title)
                            if data__title_len < 1:
                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".title must be longer than or equal to 1 characters")
                        data__title_is_list = isinstance(data__title, (list, tuple))
                        if data__title_is_list:
                            data__title_len = len(data__title)
                            if data__title_len < 1:
                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".title must contain at least 1 items")
                data_any_of_count1 += 1
            except (JsonSchemaValueException, JsonSchemaValuesException): pass
        if not data_any_of_count1:
            try:
                data_is_dict = isinstance(data, dict)
                if data_is_dict:
                    data__missing_keys = set(['description']) - data.keys()
                    if data__missing_keys:
                        raise JsonSchemaValueException("" + (name_prefix or "data") + " must contain ")
                    data_keys = set(data.keys())
                    if "description" in data_keys:
                        data_keys.remove("description")
                        data__description = data["description"]
                        if not isinstance(data__description, (str, list, tuple)):
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".description must be string or array")
                        if isinstance(data__description, str):
                            data__description_len = len(data__description)
                            if data__description_len < 1:
                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".description must be longer than or equal to 1 characters")
                        data__description_is_list = isinstance(data__description, (list, tuple))
                        if data__description_is_list:
                            data__description_len = len(data__description)
                            if data__description_len < 1:
                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".description must contain at least 1 items")
                data_any_of_count1 += 1
            except (JsonSchemaValueException, JsonSchemaValuesException): pass
        if not data_any_of_count1:
            try:
                data_is_dict = isinstance(data, dict)
                if data_is_dict:
                    data__missing_keys = set(['action']) - data.keys()
                    if data__missing_keys:
                        raise JsonSchemaValueException("" + (name_prefix or "data") + " must contain ")
                    data_keys = set(data.keys())
                    if "action" in data_keys:
                        data_keys.remove("action")
                        data__action = data["action"]
                        if not isinstance(data__action, (str, list, tuple)):
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".action must be string or array")
                        if isinstance(data__action, str):
                            data__action_len = len(data__action)
                            if data__action_len < 1:
                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".action must be longer than or equal to 1 characters")
                        data__action_is_list = isinstance(data__action, (list, tuple))
                        if data__action_is_list:
                            data__action_len = len(data__action)
                            if data__action_len < 1:
                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".action must contain at least 1 items")
                data_any_of_count1 += 1
            except (JsonSchemaValueException, JsonSchemaValuesException): pass
        if not data_any_of_count1:
            try:
                data_is_dict = isinstance(data, dict)
                if data_is_dict:
                    data__missing_keys = set(['phase']) - data.keys()
                    if data__missing_keys:
                        raise JsonSchemaValueException("" + (name_prefix or "data") + " must contain ")
                    data_keys = set(data.keys())
                    if "phase" in data_keys:
                        data_keys.remove("phase")
                        data__phase = data["phase"]
                        if not isinstance(data__phase, (str, list, tuple)):
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".phase must be string or array")
                        if isinstance(data__phase, str):
                            data__phase_len = len(data__phase)
                            if data__phase_len < 1:
                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".phase must be longer than or equal to 1 characters")
                        data__phase_is_list = isinstance(data__phase, (list, tuple))
                        if data__phase_is_list:
                            data__phase_len = len(data__phase)
                            if data__phase_len < 1:
                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".phase must contain at least 1 items")
                data_any_of_count1 += 1
            except (JsonSchemaValueException, JsonSchemaValuesException): pass
        if not data_any_of_count1:
            try:
                data_is_dict = isinstance(data, dict)
                if data_is_dict:
                    data__missing_keys = set(['modification_points']) - data.keys()
                    if data__missing_keys:
                        raise JsonSchemaValueException("" + (name_prefix or "data") + " must contain ")
                    data_keys = set(data.keys())
                    if "modification_points" in data_keys:
                        data_keys.remove("modification_points")
                        data__modificationpoints = data["modification_points"]
                        if not isinstance(data__modificationpoints, (str, list, tuple)):
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".modification_points must be string or array")
                        if isinstance(data__modificationpoints, str):
                            data__modificationpoints_len = len(data__modificationpoints)
                            if data__modificationpoints_len < 1:
                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".modification_points must be longer than or equal to 1 characters")
                        data__modificationpoints_is_list = isinstance(data__modificationpoints, (list, tuple))
                        if data__modificationpoints_is_list:
                            data__modificationpoints_len = len(data__modificationpoints)
                            if data__modificationpoints_len < 1:
                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".modification_points must contain at least 1 items")
                data_any_of_count1 += 1
            except (JsonSchemaValueException, JsonSchemaValuesException): pass
        if not data_any_of_count1:
            try:
                data_is_dict = isinstance(data, dict)
                if data_is_dict:
                    data__missing_keys = set(['logic_flow']) - data.keys()
                    if data__missing_keys:
                        raise JsonSchemaValueException("" + (name_prefix or "data") + " must contain ")
                    data_keys = set(data.keys())
                    if "logic_flow" in data_keys:
                        data_keys.remove("logic_flow")
                        data__logicflow = data["logic_flow"]
                        if not isinstance(data__logicflow, (str, list, tuple)):
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".logic_flow must be string or array")
                        if isinstance(data__logicflow, str):
                            data__logicflow_len = len(data__logicflow)
                            if data__logicflow_len < 1:
                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".logic_flow must be longer than or equal to 1 characters")
                        data__logicflow_is_list = isinstance(data__logicflow, (list, tuple))
                        if data__logicflow_is_list:
                            data__logicflow_len = len(data__logicflow)
                            if data__logicflow_len < 1:
                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".logic_flow must contain at least 1 items")
                data_any_of_count1 += 1
            except (JsonSchemaValueException, JsonSchemaValuesException): pass
        if not data_any_of_count1:
            try:
                data_is_dict = isinstance(data, dict)
                if data_is_dict:
                    data__missing_keys = set(['steps']) - data.keys()
                    if data__missing_keys:
                        raise JsonSchemaValueException("" + (name_prefix or "data") + " must contain ")
                    data_keys = set(data.keys())
                    if "steps" in data_keys:
                        data_keys.remove("steps")
                        data__steps = data["steps"]
                        if not isinstance(data__steps, (str, list, tuple)):
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".steps must be string or array")
                        if isinstance(data__steps, str):
                            data__steps_len = len(data__steps)
                            if data__steps_len < 1:
                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".steps must be longer than or equal to 1 characters")
                        data__steps_is_list = isinstance(data__steps, (list, tuple))
                        if data__steps_is_list:
                            data__steps_len = len(data__steps)
                            if data__steps_len < 1:
                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".steps must contain at least 1 items")
                data_any_of_count1 += 1
            except (JsonSchemaValueException, JsonSchemaValuesException): pass
        if not data_any_of_count1:
            try:
                data_is_dict = isinstance(data, dict)
                if data_is_dict:
                    data__missing_keys = set(['command']) - data.keys()
                    if data__missing_keys:
                        raise JsonSchemaValueException("" + (name_prefix or "data") + " must contain ")
                    data_keys = set(data.keys())
                    if "command" in data_keys:
                        data_keys.remove("command")
                        data__command = data["command"]
                        if not isinstance(data__command, (str, list, tuple)):
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".command must be string or array")
                        if isinstance(data__command, str):
                            data__command_len = len(data__command)
                            if data__command_len < 1:
                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".command must be longer than or equal to 1 characters")
                        data__command_is_list = isinstance(data__command, (list, tuple))
                        if data__command_is_list:
                            data__command_len = len(data__command)
                            if data__command_len < 1:
                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".command must contain at least 1 items")
                data_any_of_count1 += 1
            except (JsonSchemaValueException, JsonSchemaValuesException): pass
        if not data_any_of_count1:
            try:
                data_is_dict = isinstance(data, dict)
                if data_is_dict:
                    data__missing_keys = set(['commands']) - data.keys()
                    if data__missing_keys:
                        raise JsonSchemaValueException("" + (name_prefix or "data") + " must contain ")
                    data_keys = set(data.keys())
                    if "commands" in data_keys:
                        data_keys.remove("commands")
                        data__commands = data["commands"]
                        if not isinstance(data__commands, (str, list, tuple)):
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".commands must be string or array")
                        if isinstance(data__commands, str):
                            data__commands_len = len(data__commands)
                            if data__commands_len < 1:
                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".commands must be longer than or equal to 1 characters")
                        data__commands_is_list = isinstance(data__commands, (list, tuple))
                        if data__commands_is_list:
                            data__commands_len = len(data__commands)
                            if data__commands_len < 1:
                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".commands must contain at least 1 items")
                data_any_of_count1 += 1
            except (JsonSchemaValueException, JsonSchemaValuesException): pass
        if not data_any_of_count1:
            try:
                data_is_dict = isinstance(data, dict)
                if data_is_dict:
                    data__missing_keys = set(['actions']) - data.keys()
                    if data__missing_keys:
                        raise JsonSchemaValueException("" + (name_prefix or "data") + " must contain ")
                data_any_of_count1 += 1
            except (JsonSchemaValueException, JsonSchemaValuesException): pass
        if not data_any_of_count1:
            try:
                data_is_dict = isinstance(data, dict)
                if data_is_dict:
                    data__missing_keys = set(['details']) - data.keys()
                    if data__missing_keys:
                        raise JsonSchemaValueException("" + (name_prefix or "data") + " must contain ")
                data_any_of_count1 += 1
            except (JsonSchemaValueException, JsonSchemaValuesException): pass
        if not data_any_of_count1:
            raise JsonSchemaValueException("" + (name_prefix or "data") + " cannot be validated by any definition")
        validate_https___wfs_dev_schemas_task_schema_json___defs_run_options(data, custom_formats, (name_prefix or "data") + "")
    else:
        if isinstance(data, str):
            if not REGEX_PATTERNS['\\S'].search(data):
                raise JsonSchemaValueException("" + (name_prefix or "data") + " must match pattern \\S")
    return data

def validate_https___wfs_dev_schemas_task_schema_json___defs_run_options(data, custom_formats={}, name_prefix=None):
    data_is_dict = isinstance(data, dict)
    if data_is_dict:
        data_keys = set(data.keys())
        if "command" in data_keys:
            data_keys.remove("command")
            data__command = data["command"]
            validate_https___wfs_dev_schemas_task_schema_json___defs_command(data__command, custom_formats, (name_prefix or "data") + ".command")
        if "commands" in data_keys:
            data_keys.remove("commands")
            data__commands = data["commands"]
            validate_https___wfs_dev_schemas_task_schema_json___defs_commands(data__commands, custom_formats, (name_prefix or "data") + ".commands")
        if "on_error" in data_keys:
            data_keys.remove("on_error")
            data__onerror = data["on_error"]
            validate_https___wfs_dev_schemas_task_schema_json___defs_on_error(data__onerror, custom_formats, (name_prefix or "data") + ".on_error")
        if "success_criteria" in data_keys:
            data_keys.remove("success_criteria")
            data__successcriteria = data["success_criteria"]
            validate_https___wfs_dev_schemas_task_schema_json___defs_success_criteria(data__successcriteria, custom_formats, (name_prefix or "data") + ".success_criteria")
        if "timeout" in data_keys:
            data_keys.remove("timeout")
            data__timeout = data["timeout"]
            validate_https___wfs_dev_schemas_task_schema_json___defs_timeout(data__timeout, custom_formats, (name_prefix or "data") + ".timeout")
        if "max_iterations" in data_keys:
            data_keys.remove("max_iterations")
            data__maxiterations = data["max_iterations"]
            if not isinstance(data__maxiterations, (int)) and not (isinstance(data__maxiterations, float) and data__maxiterations.is_integer()) or isinstance(data__maxiterations, bool):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".max_iterations must be integer")
            if isinstance(data__maxiterations, (int, float, Decimal)) and not isinstance(data__maxiterations, bool):
                if data__maxiterations < 1:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".max_iterations must be bigger than or equal to 1")
    return data

def validate_https___wfs_dev_schemas_task_schema_json___defs_timeout(data, custom_formats={}, name_prefix=None):
    if not isinstance(data, (int, float, Decimal)) or isinstance(data, bool):
        raise JsonSchemaValueException("" + (name_prefix or "data") + " must be number")
    if isinstance(data, (int, float, Decimal)) and not isinstance(data, bool):
        if data > 604800:
            raise JsonSchemaValueException("" + (name_prefix or "data") + " must be smaller than or equal to 604800")
        if data <= 0:
            raise JsonSchemaValueException("" + (name_prefix or "data") + " must be bigger than 0")
    return data

def validate_https___wfs_dev_schemas_task_schema_json___defs_success_criteria(data, custom_formats={}, name_prefix=None):
    if not isinstance(data, (str)):
        raise JsonSchemaValueException("" + (name_prefix or "data") + " must be string")
    try:
        if isinstance(data, str):
            if not REGEX_PATTERNS['^exit_code:'].search(data):
                raise JsonSchemaValueException("" + (name_prefix or "data") + " must match pattern ^exit_code:")
    except (JsonSchemaValueException, JsonSchemaValuesException):
        pass
    else:
        if isinstance(data, str):
            if not REGEX_PATTERNS['^exit_code:\\s*-?[0-9]+\\s*(?![\\s\\S])'].search(data):
                raise JsonSchemaValueException("" + (name_prefix or "data") + " must match pattern ^exit_code:\\s*-?[0-9]+\\s*(?![\\s\\S])")
    try:
        if isinstance(data, str):
            if not REGEX_PATTERNS['^contains:'].search(data):
                raise JsonSchemaValueException("" + (name_prefix or "data") + " must match pattern ^contains:")
    except (JsonSchemaValueException, JsonSchemaValuesException):
        pass
    else:
        if isinstance(data, str):
            if not REGEX_PATTERNS['^contains:[\\s\\S]'].search(data):
                raise JsonSchemaValueException("" + (name_prefix or "data") + " must match pattern ^contains:[\\s\\S]")
    data_any_of_count2 = 0
    if not data_any_of_count2:
        try:
            if not (isinstance(data, str) and data == 'not_empty'):
                raise JsonSchemaValueException("" + (name_prefix or "data") + " must be one of ['not_empty']")
            data_any_of_count2 += 1
        except (JsonSchemaValueException, JsonSchemaValuesException): pass
    if not data_any_of_count2:
        try:
            if isinstance(data, str):
                if not REGEX_PATTERNS['^(exit_code|contains|regex):'].search(data):
                    raise JsonSchemaValueException("" + (name_prefix or "data") + " must match pattern ^(exit_code|contains|regex):")
            data_any_of_count2 += 1
        except (JsonSchemaValueException, JsonSchemaValuesException): pass
    if not data_any_of_count2:
        raise JsonSchemaValueException("" + (name_prefix or "data") + " cannot be validated by any definition")
    return data

def validate_https___wfs_dev_schemas_task_schema_json___defs_on_error(data, custom_formats={}, name_prefix=None):
    if not (isinstance(data, str) and data == 'skip_optional' or isinstance(data, str) and data == 'fail' or isinstance(data, str) and data == 'retry_once' or isinstance(data, str) and data == 'manual_intervention' or isinstance(data, str) and data == 'continue' or isinstance(data, str) and data == 'skip' or isinstance(data, str) and data == 'warn' or isinstance(data, str) and data == 'ignore' or isinstance(data, str) and data == 'abort' or isinstance(data, str) and data == 'stop' or isinstance(data, str) and data == 'halt' or isinstance(data, str) and data == 'retry' or isinstance(data, str) and data == 'manual' or isinstance(data, str) and data == 'ask' or isinstance(data, str) and data == 'pause'):
        raise JsonSchemaValueException("" + (name_prefix or "data") + " must be one of ['skip_optional', 'fail', 'retry_once', 'manual_intervention', 'continue', 'skip', 'warn', 'ignore', 'abort', 'stop', 'halt', 'retry', 'manual', 'ask', 'pause']")
    return data

def validate_https___wfs_dev_schemas_task_schema_json___defs_commands(data, custom_formats={}, name_prefix=None):
    if not isinstance(data, (list, tuple)):
        raise JsonSchemaValueException("" + (name_prefix or "data") + " must be array")
    data_is_list = isinstance(data, (list, tuple))
    if data_is_list:
        data_len = len(data)
        for data_x, data_item in enumerate(data):
            if not isinstance(data_item, (str)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + "[{data_x}]".format(**locals()) + " must be string")
            if isinstance(data_item, str):
                if not REGEX_PATTERNS['\\S'].search(data_item):
                    raise JsonSchemaValueException("" + (name_prefix or "data") + "[{data_x}]".format(**locals()) + " must match pattern \\S")
    return data

def validate_https___wfs_dev_schemas_task_schema_json___defs_command(data, custom_formats={}, name_prefix=None):
    if not isinstance(data, (str)):
        raise JsonSchemaValueException("" + (name_prefix or "data") + " must be string")
    if isinstance(data, str):
        if not REGEX_PATTERNS['\\S'].search(data):
            raise JsonSchemaValueException("" + (name_prefix or "data") + " must match pattern \\S")
    return data

def validate_https___wfs_dev_schemas_task_schema_json___defs_step_array(data, custom_formats={}, name_prefix=None):
    if not isinstance(data, (list, tuple)):
        raise JsonSchemaValueException("" + (name_prefix or "data") + " must be array")
    data_is_list = isinstance(data, (list, tuple))
    if data_is_list:
        data_len = len(data)
        for data_x, data_item in enumerate(data):
            validate_https___wfs_dev_schemas_task_schema_json___defs_implementation_step(data_item, custom_formats, (name_prefix or "data") + "[{data_x}]".format(**locals()))
    return data

def validate_https___wfs_dev_schemas_task_schema_json___defs_implementation_step(data, custom_formats={}, name_prefix=None):
    try:
        if not isinstance(data, (str)):
            raise JsonSchemaValueException("" + (name_prefix or "data") + " must be string")
    except (JsonSchemaValueException, JsonSchemaValuesException):
        if not isinstance(data, (dict)):
            raise JsonSchemaValueException("" + (name_prefix or "data") + " must be object")
        data_any_of_count3 = 0
        if not data_any_of_count3:
            try:
                data_is_dict = isinstance(data, dict)
                if data_is_dict:
                    data__missing_keys = set(['title']) - data.keys()
                    if data__missing_keys:
                        raise JsonSchemaValueException("" + (name_prefix or "data") + " must contain ")
                    data_keys = set(data.keys())
                    if "title" in data_keys:
                        data_keys.remove("title")
                        data__title = data["title"]
                        if not isinstance(data__title, (str, list, tuple)):
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".title must be string or array")
                        if isinstance(data__title, str):
                            data__title_len = len(data__title)
                            if data__title_len < 1:
                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".title must be longer than or equal to 1 characters")
                        data__title_is_list = isinstance(data__title, (list, tuple))
                        if data__title_is_list:
                            data__title_len = len(data__title)
                            if data__title_len < 1:
                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".title must contain at least 1 items")
                data_any_of_count3 += 1
            except (JsonSchemaValueException, JsonSchemaValuesException): pass
        if not data_any_of_count3:
            try:
                data_is_dict = isinstance(data, dict)
                if data_is_dict:
                    data__missing_keys = set(['description']) - data.keys()
                    if data__missing_keys:
                        raise JsonSchemaValueException("" + (name_prefix or "data") + " must contain ")
                    data_keys = set(data.keys())
                    if "description" in data_keys:
                        data_keys.remove("description")
                        data__description = data["description"]
                        if not isinstance(data__description, (str, list, tuple)):
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".description must be string or array")
                        if isinstance(data__description, str):
                            data__description_len = len(data__description)
                            if data__description_len < 1:
                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".description must be longer than or equal to 1 characters")
                        data__description_is_list = isinstance(data__description, (list, tuple))
                        if data__description_is_list:
                            data__description_len = len(data__description)
                            if data__description_len < 1:
                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".description must contain at least 1 items")
                data_any_of_count3 += 1
            except (JsonSchemaValueException, JsonSchemaValuesException): pass
        if not data_any_of_count3:
            try:
                data_is_dict = isinstance(data, dict)
                if data_is_dict:
                    data__missing_keys = set(['action']) - data.keys()
                    if data__missing_keys:
                        raise JsonSchemaValueException("" + (name_prefix or "data") + " must contain ")
                    data_keys = set(data.keys())
                    if "action" in data_keys:
                        data_keys.remove("action")
                        data__action = data["action"]
                        if not isinstance(data__action, (str, list, tuple)):
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".action must be string or array")
                        if isinstance(data__action, str):
                            data__action_len = len(data__action)
                            if data__action_len < 1:
                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".action must be longer than or equal to 1 characters")
                        data__action_is_list = isinstance(data__action, (list, tuple))
                        if data__action_is_list:
                            data__action_len = len(data__action)
                            if data__action_len < 1:
                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".action must contain at least 1 items")
                data_any_of_count3 += 1
            except (JsonSchemaValueException, JsonSchemaValuesException): pass
        if not data_any_of_count3:
            try:
                data_is_dict = isinstance(data, dict)
                if data_is_dict:
                    data__missing_keys = set(['phase']) - data.keys()
                    if data__missing_keys:
                        raise JsonSchemaValueException("" + (name_prefix or "data") + " must contain ")
                    data_keys = set(data.keys())
                    if "phase" in data_keys:
                        data_keys.remove("phase")
                        data__phase = data["phase"]
                        if not isinstance(data__phase, (str, list, tuple)):
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".phase must be string or array")
                        if isinstance(data__phase, str):
                            data__phase_len = len(data__phase)
                            if data__phase_len < 1:
                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".phase must be longer than or equal to 1 characters")
                        data__phase_is_list = isinstance(data__phase, (list, tuple))
                        if data__phase_is_list:
                            data__phase_len = len(data__phase)
                            if data__phase_len < 1:
                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".phase must contain at least 1 items")
                data_any_of_count3 += 1
            except (JsonSchemaValueException, JsonSchemaValuesException): pass
        if not data_any_of_count3:
            try:
                data_is_dict = isinstance(data, dict)
                if data_is_dict:
                    data__missing_keys = set(['modification_points']) - data.keys()
                    if data__missing_keys:
                        raise JsonSchemaValueException("" + (name_prefix or "data") + " must contain ")
                    data_keys = set(data.keys())
                    if "modification_points" in data_keys:
                        data_keys.remove("modification_points")
                        data__modificationpoints = data["modification_points"]
                        if not isinstance(data__modificationpoints, (str, list, tuple)):
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".modification_points must be string or array")
                        if isinstance(data__modificationpoints, str):
                            data__modificationpoints_len = len(data__modificationpoints)
                            if data__modificationpoints_len < 1:
                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".modification_points must be longer than or equal to 1 characters")
                        data__modificationpoints_is_list = isinstance(data__modificationpoints, (list, tuple))
                        if data__modificationpoints_is_list:
                            data__modificationpoints_len = len(data__modificationpoints)
                            if data__modificationpoints_len < 1:
                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".modification_points must contain at least 1 items")
                data_any_of_count3 += 1
            except (JsonSchemaValueException, JsonSchemaValuesException): pass
        if not data_any_of_count3:
            try:
                data_is_dict = isinstance(data, dict)
                if data_is_dict:
                    data__missing_keys = set(['logic_flow']) - data.keys()
                    if data__missing_keys:
                        raise JsonSchemaValueException("" + (name_prefix or "data") + " must contain ")
                    data_keys = set(data.keys())
                    if "logic_flow" in data_keys:
                        data_keys.remove("logic_flow")
                        data__logicflow = data["logic_flow"]
                        if not isinstance(data__logicflow, (str, list, tuple)):
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".logic_flow must be string or array")
                        if isinstance(data__logicflow, str):
                            data__logicflow_len = len(data__logicflow)
                            if data__logicflow_len < 1:
                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".logic_flow must be longer than or equal to 1 characters")
                        data__logicflow_is_list = isinstance(data__logicflow, (list, tuple))
                        if data__logicflow_is_list:
                            data__logicflow_len = len(data__logicflow)
                            if data__logicflow_len < 1:
                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".logic_flow must contain at least 1 items")
                data_any_of_count3 += 1
            except (JsonSchemaValueException, JsonSchemaValuesException): pass
        if not data_any_of_count3:
            try:
                data_is_dict = isinstance(data, dict)
                if data_is_dict:
                    data__missing_keys = set(['steps']) - data.keys()
                    if data__missing_keys:
                        raise JsonSchemaValueException("" + (name_prefix or "data") + " must contain ")
                    data_keys = set(data.keys())
                    if "steps" in data_keys:
                        data_keys.remove("steps")
                        data__steps = data["steps"]
                        if not isinstance(data__steps, (str, list, tuple)):
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".steps must be string or array")
                        if isinstance(data__steps, str):
                            data__steps_len = len(data__steps)
                            if data__steps_len < 1:
                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".steps must be longer than or equal to 1 characters")
                        data__steps_is_list = isinstance(data__steps, (list, tuple))
                        if data__steps_is_list:
                            data__steps_len = len(data__steps)
                            if data__steps_len < 1:
                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".steps must contain at least 1 items")
                data_any_of_count3 += 1
            except (JsonSchemaValueException, JsonSchemaValuesException): pass
        if not data_any_of_count3:
            try:
                data_is_dict = isinstance(data, dict)
                if data_is_dict:
                    data__missing_keys = set(['command']) - data.keys()
                    if data__missing_keys:
                        raise JsonSchemaValueException("" + (name_prefix or "data") + " must contain ")
                    data_keys = set(data.keys())
                    if "command" in data_keys:
                        data_keys.remove("command")
                        data__command = data["command"]
                        if not isinstance(data__command, (str, list, tuple)):
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".command must be string or array")
                        if isinstance(data__command, str):
                            data__command_len = len(data__command)
                            if data__command_len < 1:
                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".command must be longer than or equal to 1 characters")
                        data__command_is_list = isinstance(data__command, (list, tuple))
                        if data__command_is_list:
                            data__command_len = len(data__command)
                            if data__command_len < 1:
                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".command must contain at least 1 items")
                data_any_of_count3 += 1
            except (JsonSchemaValueException, JsonSchemaValuesException): pass
        if not data_any_of_count3:
            try:
                data_is_dict = isinstance(data, dict)
                if data_is_dict:
                    data__missing_keys = set(['commands']) - data.keys()
                    if data__missing_keys:
                        raise JsonSchemaValueException("" + (name_prefix or "data") + " must contain ")
                    data_keys = set(data.keys())
                    if "commands" in data_keys:
                        data_keys.remove("commands")
                        data__commands = data["commands"]
                        if not isinstance(data__commands, (str, list, tuple)):
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".commands must be string or array")
                        if isinstance(data__commands, str):
                            data__commands_len = len(data__commands)
                            if data__commands_len < 1:
                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".commands must be longer than or equal to 1 characters")
                        data__commands_is_list = isinstance(data__commands, (list, tuple))
                        if data__commands_is_list:
                            data__commands_len = len(data__commands)
                            if data__commands_len < 1:
                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".commands must contain at least 1 items")
                data_any_of_count3 += 1
            except (JsonSchemaValueException, JsonSchemaValuesException): pass
        if not data_any_of_count3:
            raise JsonSchemaValueException("" + (name_prefix or "data") + " cannot be validated by any definition")
        validate_https___wfs_dev_schemas_task_schema_json___defs_step_object(data, custom_formats, (name_prefix or "data") + "")
        data_is_dict = isinstance(data, dict)
        if data_is_dict:
            data_keys = set(data.keys())
            if "step" in data_keys:
                data_keys.remove("step")
                data__step = data["step"]
                if not isinstance(data__step, (int)) and not (isinstance(data__step, float) and data__step.is_integer()) or isinstance(data__step, bool):
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".step must be integer")
                if isinstance(data__step, (int, float, Decimal)) and not isinstance(data__step, bool):
                    if data__step < 1:
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".step must be bigger than or equal to 1")
            if "depends_on" in data_keys:
                data_keys.remove("depends_on")
                data__dependson = data["depends_on"]
                if not isinstance(data__dependson, (list, tuple)):
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".depends_on must be array")
                data__dependson_is_list = isinstance(data__dependson, (list, tuple))
                if data__dependson_is_list:
                    data__dependson_len = len(data__dependson)
                    for data__dependson_x, data__dependson_item in enumerate(data__dependson):
                        if not isinstance(data__dependson_item, (int)) and not (isinstance(data__dependson_item, float) and data__dependson_item.is_integer()) or isinstance(data__dependson_item, bool):
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".depends_on[{data__dependson_x}]".format(**locals()) + " must be integer")
    else:
        if isinstance(data, str):
            if not REGEX_PATTERNS['\\S'].search(data):
                raise JsonSchemaValueException("" + (name_prefix or "data") + " must match pattern \\S")
    return data

def validate_https___wfs_dev_schemas_task_schema_json___defs_step_object(data, custom_formats={}, name_prefix=None):
    validate_https___wfs_dev_schemas_task_schema_json___defs_run_options(data, custom_formats, (name_prefix or "data") + "")
    data_is_dict = isinstance(data, dict)
    if data_is_dict:
        data_keys = set(data.keys())
        if "title" in data_keys:
            data_keys.remove("title")
            data__title = data["title"]
            if not isinstance(data__title, (str)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".title must be string")
        if "description" in data_keys:
            data_keys.remove("description")
            data__description = data["description"]
            if not isinstance(data__description, (str)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".description must be string")
        if "modification_points" in data_keys:
            data_keys.remove("modification_points")
            data__modificationpoints = data["modification_points"]
            validate_https___wfs_dev_schemas_task_schema_json___defs_string_array(data__modificationpoints, custom_formats, (name_prefix or "data") + ".modification_points")
        if "logic_flow" in data_keys:
            data_keys.remove("logic_flow")
            data__logicflow = data["logic_flow"]
            validate_https___wfs_dev_schemas_task_schema_json___defs_string_array(data__logicflow, custom_formats, (name_prefix or "data") + ".logic_flow")
        if "output" in data_keys:
            data_keys.remove("output")
            data__output = data["output"]
            validate_https___wfs_dev_schemas_task_schema_json___defs_variable_name(data__output, custom_formats, (name_prefix or "data") + ".output")
    return data

def validate_https___wfs_dev_schemas_task_schema_json___defs_variable_name(data, custom_formats={}, name_prefix=None):
    if not isinstance(data, (str)):
        raise JsonSchemaValueException("" + (name_prefix or "data") + " must be string")
    return data

def validate_https___wfs_dev_schemas_task_schema_json___defs_pre_analysis(data, custom_formats={}, name_prefix=None):
    if not isinstance(data, (list, tuple, dict)):
        raise JsonSchemaValueException("" + (name_prefix or "data") + " must be array or object")
    data_is_list = isinstance(data, (list, tuple))
    if data_is_list:
        data_len = len(data)
        for data_x, data_item in enumerate(data):
            validate_https___wfs_dev_schemas_task_schema_json___defs_pre_analysis_step(data_item, custom_formats, (name_prefix or "data") + "[{data_x}]".format(**locals()))
    return data

def validate_https___wfs_dev_schemas_task_schema_json___defs_pre_analysis_step(data, custom_formats={}, name_prefix=None):
    if not isinstance(data, (dict)):
        raise JsonSchemaValueException("" + (name_prefix or "data") + " must be object")
    data_is_dict = isinstance(data, dict)
    if data_is_dict:
        data__missing_keys = set(['step']) - data.keys()
        if data__missing_keys:
            raise JsonSchemaValueException("" + (name_prefix or "data") + " must contain ")
    validate_https___wfs_dev_schemas_task_schema_json___defs_run_options(data, custom_formats, (name_prefix or "data") + "")
    data_is_dict = isinstance(data, dict)
    if data_is_dict:
        data_keys = set(data.keys())
        if "step" in data_keys:
            data_keys.remove("step")
            data__step = data["step"]
            if not isinstance(data__step, (str)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".step must be string")
            if isinstance(data__step, str):
                if not REGEX_PATTERNS['\\S'].search(data__step):
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".step must match pattern \\S")
        if "action" in data_keys:
            data_keys.remove("action")
            data__action = data["action"]
            if not isinstance(data__action, (str)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".action must be string")
        if "output_to" in data_keys:
            data_keys.remove("output_to")
            data__outputto = data["output_to"]
            validate_https___wfs_dev_schemas_task_schema_json___defs_variable_name(data__outputto, custom_formats, (name_prefix or "data") + ".output_to")
    return data

def validate_https___wfs_dev_schemas_task_schema_json___defs_flat_places(data, custom_formats={}, name_prefix=None):
    data_is_dict = isinstance(data, dict)
    if data_is_dict:
        data_keys = set(data.keys())
        if "description" in data_keys:
            data_keys.remove("description")
            data__description = data["description"]
            if not isinstance(data__description, (str)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".description must be string")
        if "focus_paths" in data_keys:
            data_keys.remove("focus_paths")
            data__focuspaths = data["focus_paths"]
            validate_https___wfs_dev_schemas_task_schema_json___defs_focus_paths(data__focuspaths, custom_formats, (name_prefix or "data") + ".focus_paths")
        if "requirements" in data_keys:
            data_keys.remove("requirements")
            data__requirements = data["requirements"]
            validate_https___wfs_dev_schemas_task_schema_json___defs_string_array(data__requirements, custom_formats, (name_prefix or "data") + ".requirements")
        if "convergence" in data_keys:
            data_keys.remove("convergence")
            data__convergence = data["convergence"]
            try:
                if not isinstance(data__convergence, (dict)):
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".convergence must be object")
            except (JsonSchemaValueException, JsonSchemaValuesException):
                if not isinstance(data__convergence, (str, list, tuple)):
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".convergence must be string or array")
                data__convergence_is_list = isinstance(data__convergence, (list, tuple))
                if data__convergence_is_list:
                    data__convergence_len = len(data__convergence)
                    for data__convergence_x, data__convergence_item in enumerate(data__convergence):
                        if not isinstance(data__convergence_item, (str)):
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".convergence[{data__convergence_x}]".format(**locals()) + " must be string")
            else:
                data__convergence_is_dict = isinstance(data__convergence, dict)
                if data__convergence_is_dict:
                    data__convergence_keys = set(data__convergence.keys())
                    if "criteria" in data__convergence_keys:
                        data__convergence_keys.remove("criteria")
                        data__convergence__criteria = data__convergence["criteria"]
                        try:
                            if not isinstance(data__convergence__criteria, (str)):
                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".convergence.criteria must be string")
                        except (JsonSchemaValueException, JsonSchemaValuesException):
                            validate_https___wfs_dev_schemas_task_schema_json___defs_string_array(data__convergence__criteria, custom_formats, (name_prefix or "data") + ".convergence.criteria")
                        else:
                            pass
                    if "verification" in data__convergence_keys:
                        data__convergence_keys.remove("verification")
                        data__convergence__verification = data__convergence["verification"]
                        try:
                            if not isinstance(data__convergence__verification, (list, tuple)):
                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".convergence.verification must be array")
                        except (JsonSchemaValueException, JsonSchemaValuesException):
                            if not isinstance(data__convergence__verification, (str)):
                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".convergence.verification must be string")
                        else:
                            validate_https___wfs_dev_schemas_task_schema_json___defs_string_array(data__convergence__verification, custom_formats, (name_prefix or "data") + ".convergence.verification")
                    if "definition_of_done" in data__convergence_keys:
                        data__convergence_keys.remove("definition_of_done")
                        data__convergence__definitionofdone = data__convergence["definition_of_done"]
                        if not isinstance(data__convergence__definitionofdone, (str)):
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".convergence.definition_of_done must be string")
        if "files" in data_keys:
            data_keys.remove("files")
            data__files = data["files"]
            try:
                if not isinstance(data__files, (dict)):
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".files must be object")
            except (JsonSchemaValueException, JsonSchemaValuesException):
                if not isinstance(data__files, (list, tuple)):
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".files must be array")
                data__files_is_list = isinstance(data__files, (list, tuple))
                if data__files_is_list:
                    data__files_len = len(data__files)
                    for data__files_x, data__files_item in enumerate(data__files):
                        data__files_item_any_of_count4 = 0
                        if not data__files_item_any_of_count4:
                            try:
                                if not isinstance(data__files_item, (str)):
                                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".files[{data__files_x}]".format(**locals()) + " must be string")
                                data__files_item_any_of_count4 += 1
                            except (JsonSchemaValueException, JsonSchemaValuesException): pass
                        if not data__files_item_any_of_count4:
                            try:
                                if not isinstance(data__files_item, (dict)):
                                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".files[{data__files_x}]".format(**locals()) + " must be object")
                                data__files_item_is_dict = isinstance(data__files_item, dict)
                                if data__files_item_is_dict:
                                    data__files_item__missing_keys = set(['path']) - data__files_item.keys()
                                    if data__files_item__missing_keys:
                                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".files[{data__files_x}]".format(**locals()) + " must contain ")
                                    data__files_item_keys = set(data__files_item.keys())
                                    if "path" in data__files_item_keys:
                                        data__files_item_keys.remove("path")
                                        data__files_item__path = data__files_item["path"]
                                        if not isinstance(data__files_item__path, (str)):
                                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".files[{data__files_x}].path".format(**locals()) + " must be string")
                                data__files_item_any_of_count4 += 1
                            except (JsonSchemaValueException, JsonSchemaValuesException): pass
                        if not data__files_item_any_of_count4:
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".files[{data__files_x}]".format(**locals()) + " cannot be validated by any definition")
            else:
                pass
        if "implementation" in data_keys:
            data_keys.remove("implementation")
            data__implementation = data["implementation"]
            try:
                if not isinstance(data__implementation, (list, tuple)):
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".implementation must be array")
            except (JsonSchemaValueException, JsonSchemaValuesException):
                if not isinstance(data__implementation, (dict, str)):
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".implementation must be object or string")
            else:
                validate_https___wfs_dev_schemas_task_schema_json___defs_flat_steps(data__implementation, custom_formats, (name_prefix or "data") + ".implementation")
        if "implementation_steps" in data_keys:
            data_keys.remove("implementation_steps")
            data__implementationsteps = data["implementation_steps"]
            validate_https___wfs_dev_schemas_task_schema_json___defs_flat_steps(data__implementationsteps, custom_formats, (name_prefix or "data") + ".implementation_steps")
        if "pre_analysis" in data_keys:
            data_keys.remove("pre_analysis")
            data__preanalysis = data["pre_analysis"]
            validate_https___wfs_dev_schemas_task_schema_json___defs_pre_analysis(data__preanalysis, custom_formats, (name_prefix or "data") + ".pre_analysis")
        if "cli_execution" in data_keys:
            data_keys.remove("cli_execution")
            data__cliexecution = data["cli_execution"]
            if not isinstance(data__cliexecution, (dict)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".cli_execution must be object")
        if "depends_on" in data_keys:
            data_keys.remove("depends_on")
            data__dependson = data["depends_on"]
        if "dependencies" in data_keys:
            data_keys.remove("dependencies")
            data__dependencies = data["dependencies"]
        if "acceptance_criteria" in data_keys:
            data_keys.remove("acceptance_criteria")
            data__acceptancecriteria = data["acceptance_criteria"]
        if "files_to_create" in data_keys:
            data_keys.remove("files_to_create")
            data__filestocreate = data["files_to_create"]
            validate_https___wfs_dev_schemas_task_schema_json___defs_string_array(data__filestocreate, custom_formats, (name_prefix or "data") + ".files_to_create")
        if "files_to_modify" in data_keys:
            data_keys.remove("files_to_modify")
            data__filestomodify = data["files_to_modify"]
            validate_https___wfs_dev_schemas_task_schema_json___defs_string_array(data__filestomodify, custom_formats, (name_prefix or "data") + ".files_to_modify")
    return data

def validate_https___wfs_dev_schemas_task_schema_json___defs_focus_paths(data, custom_formats={}, name_prefix=None):
    validate_https___wfs_dev_schemas_task_schema_json___defs_string_array(data, custom_formats, (name_prefix or "data") + "")
    data_is_list = isinstance(data, (list, tuple))
    if data_is_list:
        data_len = len(data)
        for data_x, data_item in enumerate(data):
            validate_https___wfs_dev_schemas_task_schema_json___defs_focus_path(data_item, custom_formats, (name_prefix or "data") + "[{data_x}]".format(**locals()))
    return data

def validate_https___wfs_dev_schemas_task_schema_json___defs_focus_path(data, custom_formats={}, name_prefix=None):
    if isinstance(data, str):
        if not REGEX_PATTERNS['\\S'].search(data):
            raise JsonSchemaValueException("" + (name_prefix or "data") + " must match pattern \\S")
    try:
        if not isinstance(data, (str)):
            raise JsonSchemaValueException("" + (name_prefix or "data") + " must be string")
        if isinstance(data, str):
            if not REGEX_PATTERNS['^~'].search(data):
                raise JsonSchemaValueException("" + (name_prefix or "data") + " must match pattern ^~")
    except (JsonSchemaValueException, JsonSchemaValuesException): pass
    else:
        raise JsonSchemaValueException("" + (name_prefix or "data") + " must NOT match a disallowed definition")
    try:
        if not isinstance(data, (str)):
            raise JsonSchemaValueException("" + (name_prefix or "data") + " must be string")
        if isinstance(data, str):
            if not REGEX_PATTERNS['^\\./'].search(data):
                raise JsonSchemaValueException("" + (name_prefix or "data") + " must match pattern ^\\./")
    except (JsonSchemaValueException, JsonSchemaValuesException): pass
    else:
        raise JsonSchemaValueException("" + (name_prefix or "data") + " must NOT match a disallowed definition")
    try:
        if not isinstance(data, (str)):
            raise JsonSchemaValueException("" + (name_prefix or "data") + " must be string")
        if isinstance(data, str):
            if not REGEX_PATTERNS['(^|[/\\\\])\\.\\.([/\\\\]|(?![\\s\\S]))'].search(data):
                raise JsonSchemaValueException("" + (name_prefix or "data") + " must match pattern (^|[/\\\\])\\.\\.([/\\\\]|(?![\\s\\S]))")
    except (JsonSchemaValueException, JsonSchemaValuesException): pass
    else:
        raise JsonSchemaValueException("" + (name_prefix or "data") + " must NOT match a disallowed definition")
    try:
        if not isinstance(data, (str)):
            raise JsonSchemaValueException("" + (name_prefix or "data") + " must be string")
        if isinstance(data, str):
            if not REGEX_PATTERNS['\\$\\{[^}]*\\}|\\{\\{[^}]*\\}\\}|\\{[^},]*\\}|<[^>]*>'].search(data):
                raise JsonSchemaValueException("" + (name_prefix or "data") + " must match pattern \\$\\{[^}]*\\}|\\{\\{[^}]*\\}\\}|\\{[^},]*\\}|<[^>]*>")
    except (JsonSchemaValueException, JsonSchemaValuesException): pass
    else:
        raise JsonSchemaValueException("" + (name_prefix or "data") + " must NOT match a disallowed definition")
    try:
        if not isinstance(data, (str)):
            raise JsonSchemaValueException("" + (name_prefix or "data") + " must be string")
        if isinstance(data, str):
            if not REGEX_PATTERNS['[*?{]|\\[(?!\\[?(?:\\.\\.\\.)?[A-Za-z_][A-Za-z0-9_-]*\\]\\]?(?:[/\\\\.]|(?![\\s\\S])))|(?<=[^/\\\\\\[])\\['].search(data):
                raise JsonSchemaValueException("" + (name_prefix or "data") + " must match pattern [*?{]|\\[(?!\\[?(?:\\.\\.\\.)?[A-Za-z_][A-Za-z0-9_-]*\\]\\]?(?:[/\\\\.]|(?![\\s\\S])))|(?<=[^/\\\\\\[])\\[")
    except (JsonSchemaValueException, JsonSchemaValuesException): pass
    else:
        raise JsonSchemaValueException("" + (name_prefix or "data") + " must NOT match a disallowed definition")
    return data

def validate_https___wfs_dev_schemas_task_schema_json___defs_identity(data, custom_formats={}, name_prefix=None):
    data_any_of_count5 = 0
    if not data_any_of_count5:
        try:
            data_is_dict = isinstance(data, dict)
            if data_is_dict:
                data__missing_keys = set(['id']) - data.keys()
                if data__missing_keys:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + " must contain ")
            data_any_of_count5 += 1
        except (JsonSchemaValueException, JsonSchemaValuesException): pass
    if not data_any_of_count5:
        try:
            data_is_dict = isinstance(data, dict)
            if data_is_dict:
                data__missing_keys = set(['task_id']) - data.keys()
                if data__missing_keys:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + " must contain ")
            data_any_of_count5 += 1
        except (JsonSchemaValueException, JsonSchemaValuesException): pass
    if not data_any_of_count5:
        raise JsonSchemaValueException("" + (name_prefix or "data") + " cannot be validated by any definition")
    data_is_dict = isinstance(data, dict)
    if data_is_dict:
        data_keys = set(data.keys())
        if "id" in data_keys:
            data_keys.remove("id")
            data__id = data["id"]
            if not isinstance(data__id, (str)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".id must be string")
            validate_https___wfs_dev_schemas_task_schema_json___defs_task_id(data__id, custom_formats, (name_prefix or "data") + ".id")
        if "task_id" in data_keys:
            data_keys.remove("task_id")
            data__taskid = data["task_id"]
            if not isinstance(data__taskid, (str)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".task_id must be string")
            validate_https___wfs_dev_schemas_task_schema_json___defs_task_id(data__taskid, custom_formats, (name_prefix or "data") + ".task_id")
        if "title" in data_keys:
            data_keys.remove("title")
            data__title = data["title"]
            if not isinstance(data__title, (str)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".title must be string")
            if isinstance(data__title, str):
                if not REGEX_PATTERNS['\\S'].search(data__title):
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".title must match pattern \\S")
        if "status" in data_keys:
            data_keys.remove("status")
            data__status = data["status"]
            validate_https___wfs_dev_schemas_task_schema_json___defs_status(data__status, custom_formats, (name_prefix or "data") + ".status")
        if "meta" in data_keys:
            data_keys.remove("meta")
            data__meta = data["meta"]
            validate_https___wfs_dev_schemas_task_schema_json___defs_meta(data__meta, custom_formats, (name_prefix or "data") + ".meta")
        if "context" in data_keys:
            data_keys.remove("context")
            data__context = data["context"]
            validate_https___wfs_dev_schemas_task_schema_json___defs_context(data__context, custom_formats, (name_prefix or "data") + ".context")
        if "depends_on" in data_keys:
            data_keys.remove("depends_on")
            data__dependson = data["depends_on"]
            validate_https___wfs_dev_schemas_task_schema_json___defs_id_array(data__dependson, custom_formats, (name_prefix or "data") + ".depends_on")
        if "execution" in data_keys:
            data_keys.remove("execution")
            data__execution = data["execution"]
            if not isinstance(data__execution, (dict)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".execution must be object")
    return data

def validate_https___wfs_dev_schemas_task_schema_json___defs_id_array(data, custom_formats={}, name_prefix=None):
    validate_https___wfs_dev_schemas_task_schema_json___defs_string_array(data, custom_formats, (name_prefix or "data") + "")
    data_is_list = isinstance(data, (list, tuple))
    if data_is_list:
        data_len = len(data)
        for data_x, data_item in enumerate(data):
            validate_https___wfs_dev_schemas_task_schema_json___defs_task_id(data_item, custom_formats, (name_prefix or "data") + "[{data_x}]".format(**locals()))
    return data

def validate_https___wfs_dev_schemas_task_schema_json___defs_context(data, custom_formats={}, name_prefix=None):
    if not isinstance(data, (dict)):
        raise JsonSchemaValueException("" + (name_prefix or "data") + " must be object")
    data_is_dict = isinstance(data, dict)
    if data_is_dict:
        data_keys = set(data.keys())
        if "requirements" in data_keys:
            data_keys.remove("requirements")
            data__requirements = data["requirements"]
            validate_https___wfs_dev_schemas_task_schema_json___defs_string_array(data__requirements, custom_formats, (name_prefix or "data") + ".requirements")
        if "focus_paths" in data_keys:
            data_keys.remove("focus_paths")
            data__focuspaths = data["focus_paths"]
            validate_https___wfs_dev_schemas_task_schema_json___defs_focus_paths(data__focuspaths, custom_formats, (name_prefix or "data") + ".focus_paths")
        if "acceptance" in data_keys:
            data_keys.remove("acceptance")
            data__acceptance = data["acceptance"]
            validate_https___wfs_dev_schemas_task_schema_json___defs_string_array(data__acceptance, custom_formats, (name_prefix or "data") + ".acceptance")
        if "parent" in data_keys:
            data_keys.remove("parent")
            data__parent = data["parent"]
            if not isinstance(data__parent, (str, NoneType)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".parent must be string or null")
            validate_https___wfs_dev_schemas_task_schema_json___defs_task_id(data__parent, custom_formats, (name_prefix or "data") + ".parent")
            try:
                if not isinstance(data__parent, (str)):
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".parent must be string")
                if isinstance(data__parent, str):
                    if not REGEX_PATTERNS['^IMPL-[0-9]+\\.[0-9]+(?![\\s\\S])'].search(data__parent):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".parent must match pattern ^IMPL-[0-9]+\\.[0-9]+(?![\\s\\S])")
            except (JsonSchemaValueException, JsonSchemaValuesException): pass
            else:
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".parent must NOT match a disallowed definition")
        if "depends_on" in data_keys:
            data_keys.remove("depends_on")
            data__dependson = data["depends_on"]
            validate_https___wfs_dev_schemas_task_schema_json___defs_id_array(data__dependson, custom_formats, (name_prefix or "data") + ".depends_on")
        if "inherited" in data_keys:
            data_keys.remove("inherited")
            data__inherited = data["inherited"]
            if not isinstance(data__inherited, (dict, NoneType)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".inherited must be object or null")
        if "shared_context" in data_keys:
            data_keys.remove("shared_context")
            data__sharedcontext = data["shared_context"]
            if not isinstance(data__sharedcontext, (dict, NoneType)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".shared_context must be object or null")
        if "artifacts" in data_keys:
            data_keys.remove("artifacts")
            data__artifacts = data["artifacts"]
            if not isinstance(data__artifacts, (list, tuple)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".artifacts must be array")
            data__artifacts_is_list = isinstance(data__artifacts, (list, tuple))
            if data__artifacts_is_list:
                data__artifacts_len = len(data__artifacts)
                for data__artifacts_x, data__artifacts_item in enumerate(data__artifacts):
                    validate_https___wfs_dev_schemas_task_schema_json___defs_artifact(data__artifacts_item, custom_formats, (name_prefix or "data") + ".artifacts[{data__artifacts_x}]".format(**locals()))
    return data

def validate_https___wfs_dev_schemas_task_schema_json___defs_artifact(data, custom_formats={}, name_prefix=None):
    try:
        if not isinstance(data, (dict)):
            raise JsonSchemaValueException("" + (name_prefix or "data") + " must be object")
    except (JsonSchemaValueException, JsonSchemaValuesException):
        if not isinstance(data, (str)):
            raise JsonSchemaValueException("" + (name_prefix or "data") + " must be string")
        validate_https___wfs_dev_schemas_task_schema_json___defs_relative_path(data, custom_formats, (name_prefix or "data") + "")
    else:
        data_is_dict = isinstance(data, dict)
        if data_is_dict:
            data_keys = set(data.keys())
            if "type" in data_keys:
                data_keys.remove("type")
                data__type = data["type"]
                if not isinstance(data__type, (str)):
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".type must be string")
                try:
                    if not isinstance(data__type, (str)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".type must be string")
                    if isinstance(data__type, str):
                        if not REGEX_PATTERNS['^[^|]*[^|\\s][^|]*(\\|[^|]*[^|\\s][^|]*)+(?![\\s\\S])'].search(data__type):
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".type must match pattern ^[^|]*[^|\\s][^|]*(\\|[^|]*[^|\\s][^|]*)+(?![\\s\\S])")
                except (JsonSchemaValueException, JsonSchemaValuesException): pass
                else:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".type must NOT match a disallowed definition")
            if "priority" in data_keys:
                data_keys.remove("priority")
                data__priority = data["priority"]
                if not (isinstance(data__priority, str) and data__priority == 'highest' or isinstance(data__priority, str) and data__priority == 'high' or isinstance(data__priority, str) and data__priority == 'medium' or isinstance(data__priority, str) and data__priority == 'low'):
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".priority must be one of ['highest', 'high', 'medium', 'low']")
            if "path" in data_keys:
                data_keys.remove("path")
                data__path = data["path"]
                validate_https___wfs_dev_schemas_task_schema_json___defs_relative_path(data__path, custom_formats, (name_prefix or "data") + ".path")
    return data

def validate_https___wfs_dev_schemas_task_schema_json___defs_relative_path(data, custom_formats={}, name_prefix=None):
    if not isinstance(data, (str)):
        raise JsonSchemaValueException("" + (name_prefix or "data") + " must be string")
    if isinstance(data, str):
        if not REGEX_PATTERNS['\\S'].search(data):
            raise JsonSchemaValueException("" + (name_prefix or "data") + " must match pattern \\S")
    try:
        if not isinstance(data, (str)):
            raise JsonSchemaValueException("" + (name_prefix or "data") + " must be string")
        if isinstance(data, str):
            if not REGEX_PATTERNS['^~'].search(data):
                raise JsonSchemaValueException("" + (name_prefix or "data") + " must match pattern ^~")
    except (JsonSchemaValueException, JsonSchemaValuesException): pass
    else:
        raise JsonSchemaValueException("" + (name_prefix or "data") + " must NOT match a disallowed definition")
    return data

def validate_https___wfs_dev_schemas_task_schema_json___defs_meta(data, custom_formats={}, name_prefix=None):
    if not isinstance(data, (dict)):
        raise JsonSchemaValueException("" + (name_prefix or "data") + " must be object")
    data_is_dict = isinstance(data, dict)
    if data_is_dict:
        data_keys = set(data.keys())
        if "type" in data_keys:
            data_keys.remove("type")
            data__type = data["type"]
            if not isinstance(data__type, (str)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".type must be string")
            try:
                if not isinstance(data__type, (str)):
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".type must be string")
                if isinstance(data__type, str):
                    if not REGEX_PATTERNS['^[^|]*[^|\\s][^|]*(\\|[^|]*[^|\\s][^|]*)+(?![\\s\\S])'].search(data__type):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".type must match pattern ^[^|]*[^|\\s][^|]*(\\|[^|]*[^|\\s][^|]*)+(?![\\s\\S])")
            except (JsonSchemaValueException, JsonSchemaValuesException): pass
            else:
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".type must NOT match a disallowed definition")
        if "agent" in data_keys:
            data_keys.remove("agent")
            data__agent = data["agent"]
            if not isinstance(data__agent, (str)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".agent must be string")
            try:
                if not isinstance(data__agent, (str)):
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".agent must be string")
                if isinstance(data__agent, str):
                    if not REGEX_PATTERNS['^[^|]*[^|\\s][^|]*(\\|[^|]*[^|\\s][^|]*)+(?![\\s\\S])'].search(data__agent):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".agent must match pattern ^[^|]*[^|\\s][^|]*(\\|[^|]*[^|\\s][^|]*)+(?![\\s\\S])")
            except (JsonSchemaValueException, JsonSchemaValuesException): pass
            else:
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".agent must NOT match a disallowed definition")
            if isinstance(data__agent, str):
                if not REGEX_PATTERNS['\\S'].search(data__agent):
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".agent must match pattern \\S")
        if "depends_on" in data_keys:
            data_keys.remove("depends_on")
            data__dependson = data["depends_on"]
            validate_https___wfs_dev_schemas_task_schema_json___defs_id_array(data__dependson, custom_formats, (name_prefix or "data") + ".depends_on")
        if "focus_paths" in data_keys:
            data_keys.remove("focus_paths")
            data__focuspaths = data["focus_paths"]
            validate_https___wfs_dev_schemas_task_schema_json___defs_focus_paths(data__focuspaths, custom_formats, (name_prefix or "data") + ".focus_paths")
        if "execution_config" in data_keys:
            data_keys.remove("execution_config")
            data__executionconfig = data["execution_config"]
            if not isinstance(data__executionconfig, (dict)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".execution_config must be object")
    return data

def validate_https___wfs_dev_schemas_task_schema_json___defs_status(data, custom_formats={}, name_prefix=None):
    if not isinstance(data, (str)):
        raise JsonSchemaValueException("" + (name_prefix or "data") + " must be string")
    if not (isinstance(data, str) and data == 'pending' or isinstance(data, str) and data == 'active' or isinstance(data, str) and data == 'completed' or isinstance(data, str) and data == 'blocked' or isinstance(data, str) and data == 'container' or isinstance(data, str) and data == 'in_progress' or isinstance(data, str) and data == 'failed' or isinstance(data, str) and data == 'skipped'):
        raise JsonSchemaValueException("" + (name_prefix or "data") + " must be one of ['pending', 'active', 'completed', 'blocked', 'container', 'in_progress', 'failed', 'skipped']")
    return data

def validate_https___wfs_dev_schemas_task_schema_json___defs_task_id(data, custom_formats={}, name_prefix=None):
    if isinstance(data, str):
        if not REGEX_PATTERNS['\\S'].search(data):
            raise JsonSchemaValueException("" + (name_prefix or "data") + " must match pattern \\S")
    try:
        if not isinstance(data, (str)):
            raise JsonSchemaValueException("" + (name_prefix or "data") + " must be string")
        if isinstance(data, str):
            if not REGEX_PATTERNS['^\\s+IMPL-[0-9]+(\\.[0-9]+)?\\s*(?![\\s\\S])|^\\s*IMPL-[0-9]+(\\.[0-9]+)?\\s+(?![\\s\\S])'].search(data):
                raise JsonSchemaValueException("" + (name_prefix or "data") + " must match pattern ^\\s+IMPL-[0-9]+(\\.[0-9]+)?\\s*(?![\\s\\S])|^\\s*IMPL-[0-9]+(\\.[0-9]+)?\\s+(?![\\s\\S])")
    except (JsonSchemaValueException, JsonSchemaValuesException): pass
    else:
        raise JsonSchemaValueException("" + (name_prefix or "data") + " must NOT match a disallowed definition")
    if isinstance(data, str):
        data_len = len(data)
        if data_len > 228:
            raise JsonSchemaValueException("" + (name_prefix or "data") + " must be shorter than or equal to 228 characters")
    try:
        if not isinstance(data, (str)):
            raise JsonSchemaValueException("" + (name_prefix or "data") + " must be string")
        if isinstance(data, str):
            if not REGEX_PATTERNS['^IMPL-[0-9]+(\\.[0-9]+){2,}(?![\\s\\S])'].search(data):
                raise JsonSchemaValueException("" + (name_prefix or "data") + " must match pattern ^IMPL-[0-9]+(\\.[0-9]+){2,}(?![\\s\\S])")
    except (JsonSchemaValueException, JsonSchemaValuesException): pass
    else:
        raise JsonSchemaValueException("" + (name_prefix or "data") + " must NOT match a disallowed definition")
    try:
        if not isinstance(data, (str)):
            raise JsonSchemaValueException("" + (name_prefix or "data") + " must be string")
        if isinstance(data, str):
            if not REGEX_PATTERNS['\\$\\{[^}]*\\}|\\{\\{[^}]*\\}\\}|\\{[^},]*\\}|<[^>]*>'].search(data):
                raise JsonSchemaValueException("" + (name_prefix or "data") + " must match pattern \\$\\{[^}]*\\}|\\{\\{[^}]*\\}\\}|\\{[^},]*\\}|<[^>]*>")
    except (JsonSchemaValueException, JsonSchemaValuesException): pass
    else:
        raise JsonSchemaValueException("" + (name_prefix or "data") + " must NOT match a disallowed definition")
    try:
        if not isinstance(data, (str)):
            raise JsonSchemaValueException("" + (name_prefix or "data") + " must be string")
        if isinstance(data, str):
            if not REGEX_PATTERNS['^IMPL-([\\s\\S]*[^A-Za-z])?[NMX]([^A-Za-z][\\s\\S]*)?(?![\\s\\S])'].search(data):
                raise JsonSchemaValueException("" + (name_prefix or "data") + " must match pattern ^IMPL-([\\s\\S]*[^A-Za-z])?[NMX]([^A-Za-z][\\s\\S]*)?(?![\\s\\S])")
    except (JsonSchemaValueException, JsonSchemaValuesException): pass
    else:
        raise JsonSchemaValueException("" + (name_prefix or "data") + " must NOT match a disallowed definition")
    try:
        if not isinstance(data, (str)):
            raise JsonSchemaValueException("" + (name_prefix or "data") + " must be string")
        if isinstance(data, str):
            if not REGEX_PATTERNS['^(?!IMPL-)[A-Za-z][A-Za-z0-9_]*-[0-9]+(\\.[0-9]+)*(?![\\s\\S])'].search(data):
                raise JsonSchemaValueException("" + (name_prefix or "data") + " must match pattern ^(?!IMPL-)[A-Za-z][A-Za-z0-9_]*-[0-9]+(\\.[0-9]+)*(?![\\s\\S])")
    except (JsonSchemaValueException, JsonSchemaValuesException): pass
    else:
        raise JsonSchemaValueException("" + (name_prefix or "data") + " must NOT match a disallowed definition")
    try:
        if not isinstance(data, (str)):
            raise JsonSchemaValueException("" + (name_prefix or "data") + " must be string")
        if isinstance(data, str):
            if not REGEX_PATTERNS['^IMPL-[0-9]'].search(data):
                raise JsonSchemaValueException("" + (name_prefix or "data") + " must match pattern ^IMPL-[0-9]")
        try:
            if not isinstance(data, (str)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + " must be string")
            if isinstance(data, str):
                if not REGEX_PATTERNS['^IMPL-[0-9]+(\\.[0-9]+)?(?![\\s\\S])'].search(data):
                    raise JsonSchemaValueException("" + (name_prefix or "data") + " must match pattern ^IMPL-[0-9]+(\\.[0-9]+)?(?![\\s\\S])")
        except (JsonSchemaValueException, JsonSchemaValuesException): pass
        else:
            raise JsonSchemaValueException("" + (name_prefix or "data") + " must NOT match a disallowed definition")
    except (JsonSchemaValueException, JsonSchemaValuesException): pass
    else:
        raise JsonSchemaValueException("" + (name_prefix or "data") + " must NOT match a disallowed definition")
    if isinstance(data, str):
        if not REGEX_PATTERNS['^IMPL-[0-9]+(\\.[0-9]+)?(?![\\s\\S])'].search(data):
            raise JsonSchemaValueException("" + (name_prefix or "data") + " must match pattern ^IMPL-[0-9]+(\\.[0-9]+)?(?![\\s\\S])")
    return data

wfs_check = validate_https___wfs_dev_schemas_task_schema_json
