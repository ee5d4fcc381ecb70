module tb;
    reg        clk = 1'b0;
    reg        rst;
    reg  [7:0] duty;
    wire [7:0] cnt;
    wire       pwm;
    reg  [7:0] m_cnt, m_duty;
    integer errors, samples, cyc, seed, period;

    pwm8 dut (.clk(clk), .rst(rst), .duty(duty), .cnt(cnt), .pwm(pwm));

    always #5 clk = ~clk;

    initial begin
        errors = 0; samples = 0; seed = 255;
        rst = 1'b1; duty = 8'd100; {m_cnt, m_duty} = 16'bx;
        for (cyc = 0; cyc < 2700; cyc = cyc + 1) begin
            @(posedge clk);
            if (rst) begin m_cnt = 0; m_duty = 0; end
            else begin
                if (m_cnt == 8'd255) m_duty = duty;
                m_cnt = m_cnt + 8'd1;
            end
            @(negedge clk);
            rst = (cyc < 2) || (cyc == 1900);
            period = cyc / 256;
            // duty changes in the middle of periods; it must only act from the next period on
            if (cyc % 97 == 13) begin
                case (period % 5)
                    0: duty = 8'd0;
                    1: duty = 8'd255;
                    2: duty = 8'd1;
                    default: duty = $random(seed);
                endcase
            end
            #1;
            samples = samples + 1;
            if (cnt !== m_cnt) begin
                errors = errors + 1;
                if (errors <= 5)
                    $display("MISMATCH time=%0t signal=cnt expected=%h got=%h", $time, m_cnt, cnt);
            end
            if (pwm !== (m_cnt < m_duty)) begin
                errors = errors + 1;
                if (errors <= 5)
                    $display("MISMATCH time=%0t signal=pwm expected=%h got=%h cnt=%0d duty_q=%0d", $time, m_cnt < m_duty, pwm, m_cnt, m_duty);
            end
        end
        $display("Mismatches: %0d in %0d samples", errors, samples);
        $finish;
    end
endmodule
