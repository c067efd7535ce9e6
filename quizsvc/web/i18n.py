"""The interface in zh and en: the learner's choice (a toggle) or else Accept-Language.

The content's language follows the same choice. The catalog is small and checked by a test
(every key has both languages; every key a template uses exists).
"""

from __future__ import annotations

from flask import Flask, request, session

LANGUAGES = ("zh", "en")
DEFAULT_LANGUAGE = "en"

MESSAGES: dict[str, dict[str, str]] = {
    "app_name": {"zh": "手算 Transformer", "en": "Transformer by hand"},
    "nav_chapter": {"zh": "章节测试", "en": "Chapter quiz"},
    "nav_drills": {"zh": "计算练习", "en": "Drills"},
    "nav_progress": {"zh": "学习进度", "en": "Progress"},
    "nav_logout": {"zh": "退出", "en": "Log out"},
    "nav_login": {"zh": "登录", "en": "Log in"},
    "switch_language": {"zh": "English", "en": "中文"},
    "login_title": {"zh": "登录", "en": "Log in"},
    "username": {"zh": "用户名", "en": "User name"},
    "password": {"zh": "密码", "en": "Password"},
    "login_failed": {"zh": "用户名或密码错误。", "en": "Wrong user name or password."},
    "logged_out": {"zh": "已退出。", "en": "You are logged out."},
    "submit": {"zh": "提交", "en": "Submit"},
    "your_answer": {"zh": "你的答案", "en": "Your answer"},
    "correct_answer": {"zh": "正确答案", "en": "Correct answer"},
    "explanation": {"zh": "解析", "en": "Explanation"},
    "reference_answer": {"zh": "参考答案", "en": "Reference answer"},
    "key_points": {"zh": "要点", "en": "Key points"},
    "correct": {"zh": "正确", "en": "Correct"},
    "wrong": {"zh": "错误", "en": "Wrong"},
    "score": {"zh": "得分", "en": "Score"},
    "awaiting_review": {
        "zh": "等待老师评阅（建议得分 {score}）。",
        "en": "Waiting for an instructor's review (suggested score {score}).",
    },
    "reviewed": {"zh": "老师评阅：{score}", "en": "Instructor's score: {score}"},
    "reviewer_comment": {"zh": "评语", "en": "Comment"},
    "drills_title": {"zh": "计算练习", "en": "Drills"},
    "drills_intro": {
        "zh": "每道练习都由一次真实的前向计算生成：数字小，可以手算。",
        "en": "Every drill comes from one real forward pass, with numbers small enough to "
        "compute by hand.",
    },
    "next_recommended": {
        "zh": "推荐下一题（最弱的技能）",
        "en": "Next recommended (weakest skill)",
    },
    "start": {"zh": "开始", "en": "Start"},
    "new_variant": {"zh": "换一组数字", "en": "New variant"},
    "given": {"zh": "已知", "en": "Given"},
    "answer_grid_help": {
        "zh": "逐格填写，或把整个矩阵粘贴到下面的文本框（行用换行或 ; 分隔，-inf 表示 −∞）。",
        "en": "Fill in the grid, or paste the whole matrix into the text box below (rows "
        "separated by new lines or ;, -inf for −∞).",
    },
    "paste_matrix": {"zh": "粘贴矩阵", "en": "Paste a matrix"},
    "attempts_left": {"zh": "剩余次数：{n}", "en": "Attempts left: {n}"},
    "attempt_score": {
        "zh": "第 {attempt} 次：得分 {score}（原始 {raw}，扣分 {penalty}）",
        "en": "Attempt {attempt}: score {score} (raw {raw}, penalty {penalty})",
    },
    "invalid_answer": {
        "zh": "无法读取答案：{message}",
        "en": "Could not read the answer: {message}",
    },
    "no_attempts_left": {"zh": "没有剩余次数了。", "en": "No attempts left."},
    "solution": {"zh": "详细解答", "en": "Worked solution"},
    "attention_heatmap": {"zh": "注意力权重热力图", "en": "Attention weights heatmap"},
    "accepted_interval": {"zh": "可接受区间", "en": "Accepted interval"},
    "cell_right": {"zh": "对", "en": "right"},
    "cell_wrong": {"zh": "错", "en": "wrong"},
    "progress_title": {"zh": "学习进度", "en": "Progress"},
    "skill": {"zh": "技能", "en": "Skill"},
    "attempts": {"zh": "次数", "en": "Attempts"},
    "best": {"zh": "最佳", "en": "Best"},
    "last": {"zh": "最近", "en": "Last"},
    "mastery": {"zh": "掌握度", "en": "Mastery"},
    "last_activity": {"zh": "最近活动", "en": "Last activity"},
    "recent_history": {"zh": "最近记录", "en": "Recent history"},
    "no_progress": {"zh": "还没有记录。先做一道练习吧。", "en": "Nothing yet. Try a drill."},
    "error_title": {"zh": "出错了", "en": "Something went wrong"},
    "back_home": {"zh": "返回首页", "en": "Back to the start page"},
}


def negotiated_language() -> str:
    chosen = session.get("lang")
    if chosen in LANGUAGES:
        return chosen
    return request.accept_languages.best_match(LANGUAGES, default=DEFAULT_LANGUAGE)


def translate(key: str, **values: object) -> str:
    text = MESSAGES[key][negotiated_language()]
    return text.format(**values) if values else text


def init_app(app: Flask) -> None:
    app.jinja_env.globals["t"] = translate

    @app.context_processor
    def _language() -> dict[str, str]:
        return {"lang": negotiated_language()}
